//! Counters as HBase stores them (8-byte big-endian values) incremented atomically by
//! many threads, and a check-and-mutate that only one thread wins.
//!
//! `cargo run -p regionkv --example counters [DIR]`

use regionkv::{
    CheckAndMutate, ColumnFamilyDescriptor, Db, DbOptions, Get, Increment, Put, TableDescriptor,
};

fn main() -> regionkv::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "./counters-data".to_string());
    let db = Db::open(&dir, DbOptions::default())?;
    if !db.admin().table_exists("hits")? {
        let c = ColumnFamilyDescriptor::new(b"c")?;
        db.admin()
            .create_table(&TableDescriptor::new("hits", vec![c])?)?;
    }
    let t = db.table("hits")?;
    let before = t.get(&Get::new("page:/"))?.counter(b"c", b"n").unwrap_or(0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            let t = t.clone();
            s.spawn(move || {
                for _ in 0..1_000 {
                    if let Err(e) = t.increment(&Increment::new("page:/").add_column("c", "n", 1)) {
                        eprintln!("increment failed: {e}");
                    }
                }
            });
        }
    });
    let after = t.get(&Get::new("page:/"))?.counter(b"c", b"n").unwrap_or(0);
    println!(
        "counter went from {before} to {after} (+{})",
        after - before
    );
    let claimed = t.check_and_mutate(
        &CheckAndMutate::builder("job:42")
            .if_not_exists("c", "owner")
            .then_put(Put::new("job:42").add_column("c", "owner", "worker-1")),
    )?;
    println!("worker-1 claimed job 42: {}", claimed.success);
    db.close()
}
