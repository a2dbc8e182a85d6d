//! tiktoken's byte-pair merge over one piece: repeatedly merge the adjacent pair whose
//! concatenation has the lowest rank (leftmost on ties) until no pair is a token.

use super::table::RankTable;

/// Reusable scratch space so encoding a text allocates once, not once per piece.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// `(start byte, rank of the pair starting here)`; the last entry marks the piece end.
    parts: Vec<(usize, u32)>,
}

const NONE: u32 = u32::MAX;

/// Merges `piece` and leaves the part boundaries in `scratch.parts`; returns the number of tokens.
fn merge(table: &RankTable, piece: &[u8], scratch: &mut Scratch) -> usize {
    let parts = &mut scratch.parts;
    parts.clear();
    parts.extend((0..=piece.len()).map(|i| (i, NONE)));
    let pair_rank = |parts: &[(usize, u32)], i: usize| -> u32 {
        match (parts.get(i), parts.get(i + 2)) {
            (Some(&(start, _)), Some(&(end, _))) => piece
                .get(start..end)
                .and_then(|bytes| table.rank(bytes))
                .unwrap_or(NONE),
            _ => NONE,
        }
    };
    for i in 0..piece.len().saturating_sub(1) {
        let rank = pair_rank(parts, i);
        if let Some(part) = parts.get_mut(i) {
            part.1 = rank;
        }
    }
    while parts.len() > 2 {
        let mut best = (NONE, 0);
        for (i, &(_, rank)) in parts.iter().enumerate().take(parts.len() - 1) {
            if rank < best.0 {
                best = (rank, i);
            }
        }
        let (rank, i) = best;
        if rank == NONE {
            break;
        }
        // Part i absorbs part i+1; only the pairs touching it change.
        parts.remove(i + 1);
        let right = pair_rank(parts, i);
        if let Some(part) = parts.get_mut(i) {
            part.1 = right;
        }
        if i > 0 {
            let left = pair_rank(parts, i - 1);
            if let Some(part) = parts.get_mut(i - 1) {
                part.1 = left;
            }
        }
    }
    parts.len().saturating_sub(1)
}

/// Appends the ranks of `piece` to `out`.
pub(super) fn encode_piece(
    table: &RankTable,
    piece: &[u8],
    scratch: &mut Scratch,
    out: &mut Vec<u32>,
) {
    if let Some(rank) = table.rank(piece) {
        out.push(rank);
        return;
    }
    merge(table, piece, scratch);
    for pair in scratch.parts.windows(2) {
        if let [(start, _), (end, _)] = pair {
            // Every part is a single byte or a merge that was found, so the lookup succeeds.
            if let Some(rank) = piece.get(*start..*end).and_then(|bytes| table.rank(bytes)) {
                out.push(rank);
            }
        }
    }
}

/// The number of tokens of `piece`, without materialising them.
pub(super) fn count_piece(table: &RankTable, piece: &[u8], scratch: &mut Scratch) -> usize {
    if piece.is_empty() {
        return 0;
    }
    if table.rank(piece).is_some() {
        return 1;
    }
    merge(table, piece, scratch)
}
