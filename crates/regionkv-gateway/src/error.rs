//! The gateway crate's errors: what can stop a gateway from starting. Errors of single
//! requests never reach this type: they become the protocol's own error (a Thrift
//! exception, an HTTP status) on that connection.

use std::net::SocketAddr;

/// A gateway failed to start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The port could not be bound (in use, or no permission).
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// Another I/O failure while setting up (a thread could not be started ...).
    #[error("gateway: {0}")]
    Io(#[from] std::io::Error),
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;
