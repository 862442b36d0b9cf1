//! HBase's gateways over a regionkv [`Db`]: the Thrift1 server (HBase's `hbase thrift`,
//! the protocol of happybase and most non-Java clients) and the REST server (HBase's
//! `hbase rest`, "Stargate"), so a program written for an HBase cluster's gateway runs
//! against a local regionkv directory by changing host and port.
//!
//! One [`Gateway`] serves both protocols over one Db (a data directory is locked by one
//! process). Each protocol listens on its own port; connections are served by a bounded
//! pool of worker threads (see [`server`]), scanners live in a registry with an idle lease
//! (see [`scanners`]), and every limit is in [`Limits`]. The rules each handler follows are
//! HBase's own (ThriftHBaseServiceHandler, RowResource, ScannerResource ...); the
//! differences are listed in docs/gateway.md.
//!
//! ```no_run
//! use regionkv::{Db, DbOptions};
//! use regionkv_gateway::{Gateway, GatewayConfig};
//!
//! let db = Db::open("/tmp/data", DbOptions::default())?;
//! let config = GatewayConfig { thrift_port: Some(9090), rest_port: Some(8080), ..Default::default() };
//! let gateway = Gateway::start(db, config)?;
//! println!("thrift listening on {}", gateway.thrift_addr().expect("thrift is on"));
//! gateway.shutdown();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod common;
mod error;
pub mod rest;
pub mod scanners;
pub mod server;
pub mod thrift1;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

pub use error::{Error, Result};
use regionkv::Db;

/// Every bound the gateways keep, with HBase's defaults where HBase has one.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Worker threads per protocol; one serves one connection at a time (HBase's
    /// `hbase.thrift.maxWorkerThreads` is 1000; threads are started as connections need them).
    pub max_workers: usize,
    /// Accepted connections waiting for a worker; beyond this a new connection is closed at
    /// once (HBase's `hbase.thrift.maxQueuedRequests`, 1000).
    pub max_queued: usize,
    /// A connection silent this long is closed (HBase's
    /// `hbase.thrift.server.socket.read.timeout`, 60 s).
    pub idle_timeout: Duration,
    /// Largest Thrift frame, and largest unframed Thrift message (HBase's
    /// `hbase.thrift.framed.max_frame_size_in_mb`, 2 MB).
    pub max_thrift_message: usize,
    /// Largest HTTP request body the REST gateway reads.
    pub max_http_body: usize,
    /// Largest HTTP request head (request line and headers), as Jetty's 8 KiB default.
    pub max_http_head: usize,
    /// Open scanners per protocol; opening one more is refused.
    pub max_scanners: usize,
    /// A scanner nobody used for this long is closed (HBase's scanner lease,
    /// `hbase.client.scanner.timeout.period`, 60 s).
    pub scanner_lease: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_workers: 256,
            max_queued: 1000,
            idle_timeout: Duration::from_secs(60),
            max_thrift_message: 2 * 1024 * 1024,
            max_http_body: 64 * 1024 * 1024,
            max_http_head: 8 * 1024,
            max_scanners: 10_000,
            scanner_lease: Duration::from_secs(60),
        }
    }
}

/// What to serve and where.
#[derive(Debug, Clone)]
pub struct GatewayConfig {
    /// The address both gateways bind (127.0.0.1 by default: the gateways have no
    /// authentication, as HBase's without Kerberos).
    pub bind: IpAddr,
    /// The Thrift1 port (0 picks a free one); `None` serves no Thrift.
    pub thrift_port: Option<u16>,
    /// The REST port (0 picks a free one); `None` serves no REST.
    pub rest_port: Option<u16>,
    /// Refuse every mutation, as HBase's `hbase.thrift.readonly` / `hbase.rest.readonly`.
    pub read_only: bool,
    /// The bounds.
    pub limits: Limits,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        GatewayConfig {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            thrift_port: None,
            rest_port: None,
            read_only: false,
            limits: Limits::default(),
        }
    }
}

/// The running gateways. Dropping it stops them (as [`Gateway::shutdown`]).
pub struct Gateway {
    servers: Vec<server::Server>,
    thrift_addr: Option<SocketAddr>,
    rest_addr: Option<SocketAddr>,
}

impl Gateway {
    /// Binds the configured ports and starts serving `db`.
    ///
    /// # Errors
    /// [`Error::Bind`] when a port cannot be bound.
    pub fn start(db: Db, config: GatewayConfig) -> Result<Gateway> {
        let mut gateway = Gateway {
            servers: Vec::new(),
            thrift_addr: None,
            rest_addr: None,
        };
        if let Some(port) = config.thrift_port {
            let listener = bind(config.bind, port)?;
            let service = thrift1::ThriftService::new(db.clone(), &config);
            let server = server::Server::start(listener, Arc::new(service), config.limits.clone())?;
            gateway.thrift_addr = Some(server.local_addr());
            gateway.servers.push(server);
        }
        if let Some(port) = config.rest_port {
            let listener = bind(config.bind, port)?;
            let service = rest::RestService::new(db.clone(), &config);
            let server = server::Server::start(listener, Arc::new(service), config.limits.clone())?;
            gateway.rest_addr = Some(server.local_addr());
            gateway.servers.push(server);
        }
        Ok(gateway)
    }

    /// Where the Thrift1 gateway listens.
    pub fn thrift_addr(&self) -> Option<SocketAddr> {
        self.thrift_addr
    }

    /// Where the REST gateway listens.
    pub fn rest_addr(&self) -> Option<SocketAddr> {
        self.rest_addr
    }

    /// Stops accepting, closes every connection (a request being served finishes first)
    /// and joins the threads. Acknowledged writes are already in the WAL; nothing is flushed.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        for s in &self.servers {
            s.begin_shutdown();
        }
        for s in self.servers.drain(..) {
            s.join();
        }
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.stop();
    }
}

fn bind(ip: IpAddr, port: u16) -> Result<TcpListener> {
    let addr = SocketAddr::new(ip, port);
    TcpListener::bind(addr).map_err(|source| Error::Bind { addr, source })
}
