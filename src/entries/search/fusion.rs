//! Reciprocal rank fusion of the `hybrid` search mode (issue 21): the lexical (BM25) and the
//! vector (cosine) rankings merged by rank alone, so their scores need no common scale
//! (Cormack, Clarke & Büttcher, SIGIR 2009). [`rrf`] is the plain definition; [`fuse`] is what
//! the search runs (the best `limit` without ordering the lists whole), tested against it here.

use super::{best_ranked, ranked_order, sort_ranked, Scored, TieKey};

/// The `k` of reciprocal rank fusion: the paper's value, which damps the weight of the very
/// first ranks without flattening the rest.
pub const RRF_K: f64 = 60.0;

/// The one term of reciprocal rank fusion: what an item at `rank` (from 1) in one list adds.
#[inline]
pub fn rrf_term(k: f64, rank: f64) -> f64 {
    1.0 / (k + rank)
}

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
                *score = Some(score.unwrap_or(0.0) + rrf_term(k, (at + 1) as f64));
            }
        }
    }
    scores
        .into_iter()
        .enumerate()
        .filter_map(|(index, score)| score.map(|score| super::Scored { index, score }))
        .collect()
}

/// Reciprocal rank fusion (k = [`RRF_K`]) of score lists over the same candidates (each
/// candidate at most once a list), the best `limit` in [`sort_ranked`]'s order: exactly what
/// fusing the fully ordered lists gives ([`rrf`]), without ordering them whole. Each list is
/// ordered only in its best `window` (≥ 2 × limit + 61); a candidate's rank deeper in a list is
/// counted exactly when it could still matter: when its score could reach the `limit`-th best.
/// A candidate in no window scores at most `2 / (k + window + 1)`, below the `limit`-th best
/// (at least `1 / (k + limit)`), so it never does.
pub(crate) fn fuse(lists: &[Vec<Scored>], ids: &[TieKey<'_>], limit: usize) -> Vec<usize> {
    const ABSENT: u32 = u32::MAX;
    const DEEPER: u32 = u32::MAX - 1;
    let n = ids.len();
    let window = limit.saturating_mul(2).saturating_add(61).max(100);
    let term = |rank: u32| rrf_term(RRF_K, f64::from(rank));
    let deep_most = term(u32::try_from(window).unwrap_or(DEEPER) + 1);
    // ranks[l][candidate]: its rank in list l, DEEPER (in the list, below the window) or ABSENT.
    let mut ranks: Vec<Vec<u32>> = Vec::with_capacity(lists.len());
    let mut in_window: Vec<usize> = Vec::new();
    for list in lists {
        let mut at = vec![ABSENT; n];
        for s in list {
            if let Some(slot) = at.get_mut(s.index) {
                *slot = DEEPER;
            }
        }
        let mut best = list.clone();
        best_ranked(&mut best, ids, window);
        for (r, s) in best.iter().enumerate() {
            if let Some(slot) = at.get_mut(s.index) {
                if *slot == DEEPER {
                    in_window.push(s.index);
                }
                *slot = u32::try_from(r + 1).unwrap_or(DEEPER);
            }
        }
        ranks.push(at);
    }
    in_window.sort_unstable();
    in_window.dedup();
    let known = |x: usize, ranks: &[Vec<u32>]| known_ranks(x, ranks, ABSENT, DEEPER);
    let mut lower: Vec<Scored> = in_window
        .iter()
        .map(|&x| Scored {
            index: x,
            score: known(x, &ranks).0,
        })
        .collect();
    let threshold = if lower.len() >= limit && limit > 0 {
        best_ranked(&mut lower, &[], limit);
        lower.last().map_or(f64::NEG_INFINITY, |s| s.score)
    } else {
        f64::NEG_INFINITY
    };
    // A margin for the order of additions: an upper bound is never trusted to the last bit.
    let margin = 1e-9;
    let kept: Vec<usize> = in_window
        .iter()
        .copied()
        .filter(|&x| {
            let (score, deeper) = known(x, &ranks);
            score + f64::from(deeper) * deep_most >= threshold - margin
        })
        .collect();
    // The exact deeper ranks of the kept candidates, one pass over each list: each entry of the
    // list beats the kept candidates after its place among them (found by binary search).
    let mut is_kept = vec![false; n];
    for &x in &kept {
        if let Some(slot) = is_kept.get_mut(x) {
            *slot = true;
        }
    }
    for (at, list) in ranks.iter_mut().zip(lists) {
        let mut wanted: Vec<Scored> = list
            .iter()
            .filter(|s| {
                at.get(s.index) == Some(&DEEPER) && is_kept.get(s.index).copied().unwrap_or(false)
            })
            .copied()
            .collect();
        if wanted.is_empty() {
            continue;
        }
        sort_ranked(&mut wanted, ids);
        let mut beaten_from = vec![0usize; wanted.len() + 1];
        for y in list {
            // How many wanted candidates come before `y` or are `y`: by score alone, then by
            // the whole order only among those of `y`'s score (ids are compared for ties only).
            use std::cmp::Ordering::{Equal, Greater};
            let above = wanted.partition_point(|q| q.score.total_cmp(&y.score) == Greater);
            let tied = wanted.get(above..).unwrap_or_default();
            let tied = tied
                .get(..tied.partition_point(|q| q.score.total_cmp(&y.score) == Equal))
                .unwrap_or_default();
            let from = above + tied.partition_point(|q| ranked_order(q, y, ids) != Greater);
            if let Some(count) = beaten_from.get_mut(from) {
                *count += 1;
            }
        }
        let mut better = 0usize;
        for (q, count) in wanted.iter().zip(&beaten_from) {
            better += count;
            if let Some(slot) = at.get_mut(q.index) {
                *slot = u32::try_from(better + 1).unwrap_or(DEEPER);
            }
        }
    }
    let mut fused: Vec<Scored> = kept
        .iter()
        .map(|&x| Scored {
            index: x,
            score: known(x, &ranks).0,
        })
        .collect();
    best_ranked(&mut fused, ids, limit);
    fused.into_iter().map(|s| s.index).collect()
}

/// A candidate's fused score over the ranks known so far, summed in list order as `rrf` does
/// (so equal ranks give bit-equal scores), and how many deeper ranks it lacks (one copy in the
/// wasm for the three places [`fuse`] asks).
#[inline(never)]
fn known_ranks(x: usize, ranks: &[Vec<u32>], absent: u32, deeper_mark: u32) -> (f64, u32) {
    let mut score: Option<f64> = None;
    let mut deeper = 0u32;
    for at in ranks {
        match at.get(x).copied().unwrap_or(absent) {
            r if r == absent => {}
            r if r == deeper_mark => deeper += 1,
            r => score = Some(score.unwrap_or(0.0) + rrf_term(RRF_K, f64::from(r))),
        }
    }
    (score.unwrap_or(0.0), deeper)
}

#[cfg(test)]
mod tests {
    /// `fuse` against the plain definition: each list fully ordered, `rrf` over them, the fused
    /// list ordered by score then id, cut to `limit` — on lists longer than the window, with
    /// many ties (scores from a few values) and ids that share long prefixes.
    #[test]
    fn fuse_equals_rrf_over_fully_ordered_lists() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for case in 0..60 {
            let n = [5, 40, 150, 700, 2500][case % 5];
            let texts: Vec<String> = (0..n)
                .map(|i| {
                    if next(3) == 0 {
                        format!("entry-0000-0000-{:06}", next(1_000_000))
                    } else {
                        format!("e{i}")
                    }
                })
                .collect();
            let ids: Vec<TieKey> = texts.iter().map(TieKey::of).collect();
            let levels = 1 + next(40);
            let mut lists: Vec<Vec<Scored>> = Vec::new();
            for _ in 0..2 {
                let keep = 1 + next(4);
                let mut list = Vec::new();
                for index in 0..n {
                    if next(4) < keep {
                        let score = (next(levels) as f64) / 7.0;
                        list.push(Scored { index, score });
                    }
                }
                lists.push(list);
            }
            for limit in [1, 3, 10, 50] {
                let ordered: Vec<Vec<usize>> = lists
                    .iter()
                    .map(|l| {
                        let mut l = l.clone();
                        sort_ranked(&mut l, &ids);
                        l.into_iter().map(|s| s.index).collect()
                    })
                    .collect();
                let refs: Vec<&[usize]> = ordered.iter().map(|l| l.as_slice()).collect();
                let mut expected: Vec<Scored> = rrf(&refs, RRF_K)
                    .into_iter()
                    .map(|(index, score)| Scored { index, score })
                    .collect();
                sort_ranked(&mut expected, &ids);
                let expected: Vec<usize> =
                    expected.into_iter().take(limit).map(|s| s.index).collect();
                assert_eq!(
                    fuse(&lists, &ids, limit),
                    expected,
                    "case {case}, n {n}, limit {limit}"
                );
            }
        }
    }

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
