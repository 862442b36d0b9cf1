//! Quick start: open a directory, create a table, write, read, scan, delete.
//!
//! `cargo run -p regionkv --example quickstart [DIR]`

use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Delete, Get, Put, Scan, TableDescriptor};

fn main() -> regionkv::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "./quickstart-data".to_string());
    let db = Db::open(&dir, DbOptions::default())?;
    let admin = db.admin();
    if !admin.table_exists("users")? {
        let mut info = ColumnFamilyDescriptor::new(b"info")?;
        info.max_versions = 3;
        admin.create_table(&TableDescriptor::new("users", vec![info])?)?;
    }
    let users = db.table("users")?;
    users.put(&Put::new("alice").add_column("info", "email", "alice@example.com"))?;
    users.put(&Put::new("bob").add_column("info", "email", "bob@example.com"))?;
    let r = users.get(&Get::new("alice"))?;
    println!(
        "alice: {}",
        String::from_utf8_lossy(r.value(b"info", b"email").unwrap_or_default())
    );
    for row in users.scan(&Scan::new())? {
        let row = row?;
        println!(
            "row {} has {} cell(s)",
            String::from_utf8_lossy(row.row()),
            row.len()
        );
    }
    users.delete(&Delete::new("bob"))?;
    println!(
        "bob after delete: {} cell(s)",
        users.get(&Get::new("bob"))?.len()
    );
    db.close()
}
