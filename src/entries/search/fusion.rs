//! Reciprocal rank fusion of the `hybrid` search mode (issue 21): the lexical (BM25) and the
//! vector (cosine) rankings merged by rank alone, so their scores need no common scale
//! (Cormack, Clarke & Büttcher, SIGIR 2009).

/// The `k` of reciprocal rank fusion: the paper's value, which damps the weight of the very
/// first ranks without flattening the rest.
pub const RRF_K: f64 = 60.0;

/// Fuses ranked lists of item indices: each item scores `Σ 1 / (k + rank)` over the lists it is
/// in (rank from 1; an index repeated within one list counts at its first rank only). Answers
/// every item of any list, score descending, ties by ascending index. `k` should be `≥ 0` (a
/// negative one can give infinite or negative scores; nothing panics).
pub fn rrf(lists: &[&[usize]], k: f64) -> Vec<(usize, f64)> {
    let mut fused = rrf_scores(lists, k);
    super::sort_scored(&mut fused);
    fused.into_iter().map(|s| (s.index, s.score)).collect()
}

/// [`rrf`] unsorted: each item of any list with its fused score, in index order.
pub(crate) fn rrf_scores(lists: &[&[usize]], k: f64) -> Vec<super::Scored> {
    // Dense by index (the lists index one slice of candidates): a score per index, `None` while
    // no list has it, and the list that last counted it (an index repeated within one list
    // counts once). Each score is summed in list order, as before with a map.
    let size = lists
        .iter()
        .flat_map(|l| l.iter())
        .max()
        .map_or(0, |&m| m.saturating_add(1));
    let mut scores: Vec<Option<f64>> = vec![None; size];
    let mut counted_in: Vec<usize> = vec![usize::MAX; size];
    for (l, list) in lists.iter().enumerate() {
        for (at, &index) in list.iter().enumerate() {
            let (Some(score), Some(last)) = (scores.get_mut(index), counted_in.get_mut(index))
            else {
                continue;
            };
            if *last != l {
                *last = l;
                *score = Some(score.unwrap_or(0.0) + 1.0 / (k + (at + 1) as f64));
            }
        }
    }
    scores
        .into_iter()
        .enumerate()
        .filter_map(|(index, score)| score.map(|score| super::Scored { index, score }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_high_in_both_lists_wins() {
        let fused = rrf(&[&[3, 1, 2], &[1, 3, 4]], RRF_K);
        // 1 and 3 each score 1/61 + 1/62: a tie, broken by index.
        assert_eq!(fused.iter().map(|f| f.0).collect::<Vec<_>>(), [1, 3, 2, 4]);
        assert_eq!(fused[0].1, 1.0 / 61.0 + 1.0 / 62.0);
        assert_eq!(fused[2].1, 1.0 / 63.0);
    }

    #[test]
    fn a_repeated_index_counts_at_its_first_rank() {
        assert_eq!(rrf(&[&[5, 5, 6]], 0.0), [(5, 1.0), (6, 1.0 / 3.0)]);
    }

    #[test]
    fn no_lists_fuse_to_nothing() {
        assert!(rrf(&[], RRF_K).is_empty());
        assert!(rrf(&[&[], &[]], RRF_K).is_empty());
    }
}
