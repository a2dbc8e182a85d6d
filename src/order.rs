//! One stable sort for the whole crate. Every `sort_by` of a new element type or with a new
//! comparator is another copy of the standard library's sort in the wasm (4–8 KB each): here the
//! standard sort runs once, over positions, with the comparison behind a `dyn` call, and the
//! elements are then moved into that order. The result is exactly `slice.sort_by(cmp)`'s.

use std::cmp::Ordering;

/// Sort `items` stably by `cmp`: the same order as `items.sort_by(cmp)`, through one sort
/// instance (for a total order, also the same as `sort_unstable_by`).
pub(crate) fn sort_by<T>(items: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let compare = |a: usize, b: usize| match (items.get(a), items.get(b)) {
        (Some(a), Some(b)) => cmp(a, b),
        _ => Ordering::Equal,
    };
    let order = sorted_positions(items.len(), &compare);
    permute(items, order);
}

/// The positions `0..len` stably sorted by `cmp` (not generic: one copy in the wasm).
fn sorted_positions(len: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Move `items` so that position `i` holds what was at `order[i]`: each cycle of the
/// permutation is followed once with swaps (linear; `order` marks what is done).
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        let mut at = start;
        while let Some(slot) = order.get_mut(at) {
            let from = std::mem::replace(slot, usize::MAX);
            if from == usize::MAX || from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_exactly_as_the_standard_stable_sort() {
        let mut seed = 0x2545_f491_u64;
        for len in 0..200 {
            let items: Vec<(u8, usize)> = (0..len)
                .map(|i| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    ((seed >> 59) as u8, i)
                })
                .collect();
            let mut ours = items.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut std = items;
            std.sort_by_key(|a| a.0);
            assert_eq!(ours, std);
        }
    }

    #[test]
    fn sorts_by_a_reversed_order() {
        let mut items = vec!["b", "a", "d", "c", "a"];
        sort_by(&mut items, |a, b| b.cmp(a));
        assert_eq!(items, ["d", "c", "b", "a", "a"]);
    }
}
