//! HBase's REST gateway ("Stargate"). Placeholder until the REST server lands: every
//! request gets 503.

use std::io::Write;

use regionkv::Db;

use crate::GatewayConfig;
use crate::server::{Connection, Service};

/// The REST protocol over one Db.
pub struct RestService {
    _db: Db,
}

impl RestService {
    /// A REST service over `db`.
    pub fn new(db: Db, _config: &GatewayConfig) -> Self {
        RestService { _db: db }
    }
}

impl Service for RestService {
    fn name(&self) -> &'static str {
        "rest"
    }

    fn serve(&self, mut conn: Connection) {
        let _ = conn.stream.write_all(
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    }
}
