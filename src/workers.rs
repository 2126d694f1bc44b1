//! The worker pool's one way of sharing work: a list taken item by item.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` of every item, each worker of rayon's pool taking the next item not yet taken as
/// soon as it is free; the results in the items' order.
///
/// Items come in the order their cost is best spread in (a batch's shuffled files, a
/// judgement's parts with the heavy ones first), so this greedy order keeps every worker
/// busy to the end, where rayon's halving of a list leaves one worker with the last
/// heavy half. Items may themselves split work on the same pool.
pub fn each_in_order<I: Sync, T: Send + Sync>(
    items: &[I],
    f: impl Fn(usize, &I) -> T + Sync,
) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let done: Vec<OnceLock<T>> = items.iter().map(|_| OnceLock::new()).collect();
    rayon::scope(|s| {
        for _ in 0..rayon::current_num_threads().min(items.len()) {
            s.spawn(|_| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let _ = done[i].set(f(i, item));
                }
            });
        }
    });
    done.into_iter()
        .map(|d| d.into_inner().expect("every item is taken"))
        .collect()
}
