//! The worker threads that native Async Commands spread their independent parts over.
//!
//! Legacy commands run on the queue's thread one after another, as a GPU front end that knows
//! nothing of their independence must. A native Async Command says its parts are independent,
//! so the device may run them at once: that is the speedup the API exists for. One pool serves
//! every device of the process, so that several devices do not start a thread per core each.

use asyncmd_ddi::ResourceId;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError, TryLockError};

/// Work smaller than this, divided by the workers, runs on the calling thread (but never less
/// than [`PARALLEL_FLOOR_BYTES`]). Waking sleeping workers costs tens of microseconds on a
/// small virtual machine, and memory-bound work gains little from a second core there. On 2
/// cores (`asyncmd bench`): a 256 KiB clear took 8 µs alone and 60 µs spread, a 4 MiB one
/// 0.10 ms alone and 0.16-0.20 spread, a 16 MiB depth clear 0.6-0.9 ms alone and 0.7-1.1
/// spread, while 32 MiB of bound clears and 256 MiB batches gained 1.0-1.9×. On 16 cores a
/// 16 MiB depth clear gained 2.6-3.5×.
const PARALLEL_WORK_BYTES: u64 = 64 << 20;
/// The least work ever spread.
const PARALLEL_FLOOR_BYTES: u64 = 4 << 20;

/// The least work spread over `workers` threads.
fn parallel_min_bytes(workers: usize) -> u64 {
    (PARALLEL_WORK_BYTES / workers.max(1) as u64).max(PARALLEL_FLOOR_BYTES)
}

/// The pool, built on first use; `None` where the host has one core or no thread can start,
/// and then every part runs on the calling thread.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cores < 2 {
            return None;
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(cores)
            .thread_name(|i| format!("asyncmd-ref-worker-{i}"))
            .build()
            .map_err(|e| tracing::warn!("reference device: no worker threads ({e}); native commands run serially"))
            .ok()
    })
    .as_ref()
}

/// Runs `f` over `items` on the workers and the calling thread when they move at least
/// [`parallel_min_bytes`] together (`bytes` says how much each moves) and no other spread
/// call holds the turn ([`TURN`]). Items that write the same resource (`dest`) run on one
/// thread in their order: its lock would serialize them anyway.
pub(crate) fn parallel<T: Sync>(
    items: &[T],
    dest: impl Fn(&T) -> ResourceId,
    bytes: impl Fn(&T) -> u64,
    f: impl Fn(&T) + Sync + Send,
) {
    let total = items.iter().map(&bytes).fold(0u64, u64::saturating_add);
    let pool = pool().filter(|p| items.len() > 1 && total >= parallel_min_bytes(p.current_num_threads()));
    let Some((pool, turn)) = pool.and_then(|p| Some((p, take_turn()?))) else {
        items.iter().for_each(f);
        return;
    };
    // Groups by destination, in first-seen order; most calls name each destination once.
    let mut index: rustc_hash::FxHashMap<ResourceId, usize> = Default::default();
    let mut groups: Vec<Vec<&T>> = Vec::new();
    for item in items {
        let slot = *index.entry(dest(item)).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[slot].push(item);
    }
    if groups.len() == 1 {
        // Nothing to share: the turn goes back before the work, not after it.
        drop(turn);
        items.iter().for_each(f);
        return;
    }
    share(pool, turn, groups.iter(), |g| g.iter().for_each(|item| f(item)));
}

/// Runs `work` on each of `parts` on the workers and the calling thread, where there is a pool
/// and no other spread call holds the turn; else on the calling thread, in order.
pub(crate) fn spread<P: Iterator + Send>(parts: P, work: impl Fn(P::Item) + Sync) {
    match pool().and_then(|p| Some((p, take_turn()?))) {
        Some((pool, turn)) => share(pool, turn, parts, work),
        None => parts.for_each(work),
    }
}

/// The turn to spread: one spread call at a time in the process, and a call that finds it
/// taken runs its parts on its own thread.
///
/// A spread call's caller may hold the locks of the resource its parts belong to (the rows of
/// one buffer) until every job it handed out has run. If spread calls of two queues ran at
/// once, the workers could all be blocked on such a lock by the other call's parts (two queues
/// racing on one resource, which the API leaves undefined but must not hang), leaving none to
/// run the holder's jobs. With one call at a time, the workers only ever run parts of the call
/// holding the turn, whose caller holds no lock its parts take, and a thread that would wait
/// for the turn runs its parts itself instead. A part never spreads again for the same reason:
/// its thread finds the turn taken.
static TURN: Mutex<()> = Mutex::new(());

/// The turn to spread, if no other spread call holds it.
fn take_turn() -> Option<MutexGuard<'static, ()>> {
    match TURN.try_lock() {
        Ok(turn) => Some(turn),
        Err(TryLockError::Poisoned(turn)) => Some(turn.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// Runs `work` over `parts` on the workers and on the calling thread at once: the caller
/// hands every worker a job (any worker may take any job) and takes parts itself from the
/// same queue until none is left, then waits for the jobs, which end at once when the queue
/// is empty.
///
/// The caller works from the first microsecond instead of only waking workers, and a worker
/// that wakes late (or is held off its core by the host) holds no part back: the jobs go to
/// whichever workers are awake. `asyncmd bench --api CopyTilesAsync` (16 MiB in parts of
/// 256 KiB) on the 16-core H200 host, each binary in turn, 64 runs each over four calls:
/// native ÷ legacy 3.1-7.0× (6 runs under 4.2×) with each worker running its own
/// `broadcast` job, 4.2-7.8× (1 run at 4.17×) this way. A worker fewer, so that the caller
/// has the last core, measured no better there and no different on 2 cores: every core keeps
/// its worker.
///
/// The caller holds the turn ([`TURN`]) until the jobs have run.
fn share<P: Iterator + Send>(
    pool: &rayon::ThreadPool,
    _turn: MutexGuard<'static, ()>,
    parts: P,
    work: impl Fn(P::Item) + Sync,
) {
    let parts = Mutex::new(parts);
    let take = || loop {
        // The lock is held to take a part, not to work on it.
        let next = parts.lock().unwrap_or_else(PoisonError::into_inner).next();
        match next {
            Some(part) => work(part),
            None => break,
        }
    };
    pool.in_place_scope(|scope| {
        for _ in 0..pool.current_num_threads() {
            scope.spawn(|_| take());
        }
        take();
    });
}

/// Runs `f(index, row)` over `rows` cut into rows of `pitch` bytes, in chunks of rows on the
/// workers and the calling thread when the rows hold at least [`parallel_min_bytes`], `split`
/// is set and no other spread call holds the turn ([`TURN`]).
pub(crate) fn rows_mut(rows: &mut [u8], pitch: usize, split: bool, f: impl Fn(usize, &mut [u8]) + Sync + Send) {
    if pitch == 0 {
        return;
    }
    let pool = pool().filter(|p| split && rows.len() as u64 >= parallel_min_bytes(p.current_num_threads()));
    let Some((pool, turn)) = pool.and_then(|p| Some((p, take_turn()?))) else {
        rows.chunks_mut(pitch).enumerate().for_each(|(i, r)| f(i, r));
        return;
    };
    // About four chunks a worker, so that a slow one is helped.
    let chunks = pool.current_num_threads() * 4;
    let per = rows.len().div_ceil(pitch).div_ceil(chunks).max(1);
    share(pool, turn, rows.chunks_mut(per * pitch).enumerate(), |(c, block)| {
        block.chunks_mut(pitch).enumerate().for_each(|(i, r)| f(c * per + i, r));
    });
}

/// Copies `src` into `dst` (of one length), in chunks spread over the workers if `split` is
/// set and the copy is large enough to share.
pub(crate) fn copy(dst: &mut [u8], src: &[u8], split: bool) {
    const CHUNK: usize = 64 << 10;
    if dst.len() != src.len() {
        return;
    }
    rows_mut(dst, CHUNK, split, |i, d| {
        if let Some(s) = src.get(i * CHUNK..i * CHUNK + d.len()) {
            copy_bytes(d, s);
        }
    });
}

/// `dst.copy_from_slice(src)` (of one length) as a loop of 64-byte copies, which the compiler
/// makes vector loads and stores: 256 copies of 1 MiB took 24-26 ms so on a 2-core x86 host,
/// against 31-34 ms as one `memcpy` each. Slices of other lengths are left alone.
pub(crate) fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    if dst.len() != src.len() {
        return;
    }
    let mut d = dst.chunks_exact_mut(64);
    let mut s = src.chunks_exact(64);
    for (d, s) in (&mut d).zip(&mut s) {
        d.copy_from_slice(s);
    }
    d.into_remainder().copy_from_slice(s.remainder());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The tests that spread take turns: one holding the turn makes another's call run
    /// serially, and one whose call ran serially could see the turn come free in a part.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

    fn one_at_a_time() -> MutexGuard<'static, ()> {
        ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[test]
    fn spread_rows_each_run_once_with_their_index() {
        let _one = one_at_a_time();
        // Past the spreading threshold on any host (64 MiB), with a pitch that leaves a short
        // last row.
        let pitch = 4099;
        let mut rows = vec![0u8; (64 << 20) + 1000];
        rows_mut(&mut rows, pitch, true, |i, r| r.fill((i % 251) as u8 + 1));
        for (i, r) in rows.chunks(pitch).enumerate() {
            assert!(r.iter().all(|&b| b == (i % 251) as u8 + 1), "row {i}");
        }
        let src: Vec<u8> = (0..rows.len()).map(|i| (i * 7 % 253) as u8).collect();
        copy(&mut rows, &src, true);
        assert!(rows == src);
    }

    #[test]
    fn the_caller_takes_parts_too_and_no_part_spreads_again() {
        let _one = one_at_a_time();
        if pool().is_none() {
            return;
        }
        // Parts that sleep leave the cores free, so the caller is sure to take some.
        let items: Vec<u64> = (0..256).collect();
        let caller = std::thread::current().id();
        let (on_caller, could_spread) = (AtomicUsize::new(0), AtomicUsize::new(0));
        parallel(
            &items,
            |&i| ResourceId(i),
            |_| 4 << 20,
            |_| {
                if take_turn().is_some() {
                    could_spread.fetch_add(1, Ordering::Relaxed);
                }
                if std::thread::current().id() == caller {
                    on_caller.fetch_add(1, Ordering::Relaxed);
                }
                std::thread::sleep(std::time::Duration::from_micros(500));
            },
        );
        assert!(on_caller.into_inner() > 0, "the caller took no part");
        assert_eq!(could_spread.into_inner(), 0, "a part could spread again");
    }

    #[test]
    fn a_spread_call_that_finds_the_turn_taken_runs_on_its_caller() {
        let _one = one_at_a_time();
        let items: Vec<u64> = (0..64).collect();
        let _turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
        let threads = std::thread::scope(|s| {
            s.spawn(|| {
                let caller = std::thread::current().id();
                let elsewhere = AtomicUsize::new(0);
                parallel(
                    &items,
                    |&i| ResourceId(i),
                    |_| 4 << 20,
                    |_| {
                        if std::thread::current().id() != caller {
                            elsewhere.fetch_add(1, Ordering::Relaxed);
                        }
                        // Long enough for woken workers to take parts, were they handed any.
                        std::thread::sleep(std::time::Duration::from_micros(500));
                    },
                );
                elsewhere.into_inner()
            })
            .join()
            .unwrap()
        });
        assert_eq!(threads, 0, "parts ran off the caller while another call held the turn");
    }

    #[test]
    fn spread_items_of_one_destination_keep_their_order() {
        let _one = one_at_a_time();
        let items: Vec<(u64, usize)> = (0..64).map(|i| (i % 5, i as usize)).collect();
        let seen = Mutex::new(Vec::new());
        parallel(&items, |&(d, _)| ResourceId(d), |_| 4 << 20, |&(d, i)| seen.lock().unwrap().push((d, i)));
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len(), items.len());
        for d in 0..5 {
            let order: Vec<usize> = seen.iter().filter(|s| s.0 == d).map(|s| s.1).collect();
            let want: Vec<usize> = items.iter().filter(|s| s.0 == d).map(|s| s.1).collect();
            assert_eq!(order, want, "destination {d}");
        }
    }
}
