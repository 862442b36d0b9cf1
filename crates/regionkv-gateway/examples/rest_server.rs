//! A REST gateway over a data directory, for trying clients by hand (and for
//! `tests/python/rest_client.py`):
//!
//! ```text
//! cargo run -p regionkv-gateway --example rest_server -- /tmp/data 8080
//! python3 crates/regionkv-gateway/tests/python/rest_client.py http://127.0.0.1:8080
//! ```
//!
//! Prints `listening on http://ADDR` and serves until killed.

use std::error::Error;

use regionkv::{Db, DbOptions};
use regionkv_gateway::{Gateway, GatewayConfig};

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("usage: rest_server DATA_DIR [PORT]")?;
    let port: u16 = args.next().map(|p| p.parse()).transpose()?.unwrap_or(8080);
    let db = Db::open(&dir, DbOptions::default())?;
    let config = GatewayConfig {
        rest_port: Some(port),
        ..Default::default()
    };
    let gateway = Gateway::start(db, config)?;
    let addr = gateway.rest_addr().ok_or("REST is off")?;
    println!("listening on http://{addr}");
    loop {
        std::thread::park();
    }
}
