//! Measures how long an `fdatasync` takes when issued from each CPU: the asymmetry behind
//! the WAL's choice of which writer leads a shared sync ("The syncing CPU" in
//! `src/wal.rs`). For each CPU, a thread pinned to it appends 150 bytes and `fdatasync`s,
//! SAMPLES times, once with the other CPUs idle and once with a thread yielding in a loop on
//! the next CPU (what a waiting group-commit follower does). Linux only.
//!
//! ```text
//! cargo run --release -p regionkv-wal --example sync_cpu [-- SAMPLES [DIR]]
//! ```
//!
//! On the work VM (2 vCPUs, a single-queue virtio disk interrupting CPU 1) syncs from CPU 0
//! take ~30 µs longer: CPU 0 is halted while its thread sleeps, and the wake-up that the
//! completion on CPU 1 sends it costs a trip through the host. On a disk with a queue per
//! CPU the columns agree.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(target_os = "linux")]
fn main() {
    use std::os::unix::fs::FileExt;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Instant;

    fn pin(cpu: usize) {
        let mut set = rustix::thread::CpuSet::new();
        set.set(cpu);
        rustix::thread::sched_setaffinity(None, &set).expect("sched_setaffinity");
    }

    fn percentiles(mut micros: Vec<f64>) -> String {
        micros.sort_by(f64::total_cmp);
        let at = |q: f64| micros[((micros.len() as f64 * q) as usize).min(micros.len() - 1)];
        format!(
            "p10 {:>4.0} µs  p50 {:>4.0} µs  p90 {:>4.0} µs",
            at(0.1),
            at(0.5),
            at(0.9)
        )
    }

    let mut args = std::env::args().skip(1);
    let samples: usize = args.next().map_or(3000, |s| s.parse().expect("SAMPLES"));
    let tmp = tempfile::tempdir().unwrap();
    let dir = args
        .next()
        .map_or_else(|| tmp.path().to_path_buf(), Into::into);
    let path = dir.join("sync-cpu.bin");
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "fdatasync of a 150-byte append, {samples} samples per line, file {}",
        path.display()
    );
    for cpu in 0..cpus {
        for spinner in [false, true] {
            if spinner && cpus < 2 {
                continue;
            }
            let file = std::fs::File::create(&path).unwrap();
            // Written ahead and synced, so that each sync below commits data only.
            file.write_all_at(&vec![0u8; samples * 150 + 4096], 0)
                .unwrap();
            file.sync_all().unwrap();
            let stop = Arc::new(AtomicBool::new(false));
            let yielder = spinner.then(|| {
                let stop = Arc::clone(&stop);
                let other = (cpu + 1) % cpus;
                std::thread::spawn(move || {
                    pin(other);
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::yield_now();
                    }
                })
            });
            let micros = std::thread::spawn(move || {
                pin(cpu);
                let record = [b'x'; 150];
                (0..samples)
                    .map(|i| {
                        file.write_all_at(&record, (i * 150) as u64).unwrap();
                        let start = Instant::now();
                        file.sync_data().unwrap();
                        start.elapsed().as_secs_f64() * 1e6
                    })
                    .collect::<Vec<_>>()
            })
            .join()
            .unwrap();
            stop.store(true, Ordering::Relaxed);
            if let Some(y) = yielder {
                y.join().unwrap();
            }
            println!(
                "sync from CPU {cpu}, {:<32} {}",
                if spinner {
                    format!("a thread yielding on CPU {}:", (cpu + 1) % cpus)
                } else {
                    "the other CPUs idle:".to_owned()
                },
                percentiles(micros)
            );
        }
    }
    std::fs::remove_file(&path).unwrap();
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("sync_cpu pins threads with sched_setaffinity: Linux only");
}
