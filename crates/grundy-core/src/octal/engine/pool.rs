//! Sharing work between the calling thread and the threads of a pool (rayon): the dense scans
//! (`dense.rs`), the detector's long-period sweep (`squares.rs`) and the pipeline
//! (`engine/parallel/pipeline.rs`) use these. Imports nothing of the crate.

use std::sync::Mutex;

/// Runs `f` on every item, shared between the calling thread and the threads of `pool`: each
/// takes the next item when it is done with one (so the calling thread works too, and a slow
/// item does not hold up the others).
pub(crate) fn share<I: Send>(pool: &rayon::ThreadPool, items: Vec<I>, f: &(dyn Fn(I) + Sync)) {
    let queue = Mutex::new(items.into_iter());
    let work = || loop {
        let item = queue.lock().expect("a shared queue").next();
        match item {
            Some(item) => f(item),
            None => break,
        }
    };
    pool.in_place_scope(|scope| {
        for _ in 0..pool.current_num_threads() {
            scope.spawn(|_| work());
        }
        work();
    });
}

/// Runs `main` on the calling thread while every thread of `pool` runs `helper` once; returns
/// when all are done (without a pool: `main` alone, which runs `helper` itself if it must).
pub(crate) fn with_helpers<R: Send>(
    pool: Option<&rayon::ThreadPool>,
    helper: &(dyn Fn() + Sync),
    main: impl FnOnce() -> R + Send,
) -> R {
    match pool {
        None => main(),
        Some(pool) => pool.in_place_scope(|scope| {
            for _ in 0..pool.current_num_threads() {
                scope.spawn(|_| helper());
            }
            main()
        }),
    }
}
