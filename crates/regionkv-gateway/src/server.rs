//! The connection side of a gateway: one accept thread per listening port and a bounded,
//! lazily grown pool of worker threads, each serving one connection at a time (HBase's
//! TBoundedThreadPoolServer model, also used for REST here).
//!
//! Invariants: at most `max_workers` threads serve connections; at most `max_queued`
//! accepted connections wait for one, and a connection beyond that is closed at once (never
//! queued without bound); every accepted socket has the idle timeout as its read timeout,
//! so a silent client costs a worker for at most that long. Shutdown stops the accept loop,
//! shuts down every open socket (a worker blocked in a read returns at once) and joins all
//! threads. A [`Service`] that fails on one connection affects only that connection.

use std::collections::HashMap;
use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::Mutex;

use crate::Limits;

/// A protocol served on connections.
pub trait Service: Send + Sync + 'static {
    /// The protocol's name for logs and thread names ("thrift", "rest").
    fn name(&self) -> &'static str;

    /// Serves one connection until the peer closes it, it idles past the timeout, it sends
    /// something the protocol cannot recover from, or `conn.is_shutting_down()`.
    fn serve(&self, conn: Connection);

    /// Called once when the gateway stops (after the last connection ended).
    fn stopped(&self) {}
}

/// One accepted connection.
pub struct Connection {
    /// The socket (read timeout = the idle timeout).
    pub stream: TcpStream,
    /// The client's address.
    pub peer: SocketAddr,
    /// The address the client connected to (REST's scanner Location URLs use it).
    pub local: SocketAddr,
    shutdown: Arc<AtomicBool>,
}

impl Connection {
    /// True once the gateway is stopping: finish the request in hand and return.
    pub fn is_shutting_down(&self) -> bool {
        self.shutdown.load(Ordering::Acquire)
    }
}

struct Shared {
    service: Arc<dyn Service>,
    limits: Limits,
    shutdown: Arc<AtomicBool>,
    queue: Mutex<Receiver<Connection>>,
    /// Workers started, those waiting for a connection, and connections in the queue. A
    /// new connection starts a worker unless more workers wait than connections are queued
    /// (a connection must never wait behind long-lived ones while the pool may grow).
    workers: AtomicUsize,
    idle: AtomicUsize,
    queued: AtomicUsize,
    /// Clones of the open sockets, to shut them down on stop.
    open: Mutex<HashMap<u64, TcpStream>>,
    next_id: AtomicU64,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

/// One listening port and its workers.
pub struct Server {
    shared: Arc<Shared>,
    local: SocketAddr,
    acceptor: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts accepting on `listener`.
    ///
    /// # Errors
    /// When the listener's address cannot be read or the accept thread cannot start.
    pub fn start(
        listener: TcpListener,
        service: Arc<dyn Service>,
        limits: Limits,
    ) -> io::Result<Server> {
        let local = listener.local_addr()?;
        let (tx, rx) = sync_channel(limits.max_queued.max(1));
        let shared = Arc::new(Shared {
            service,
            limits,
            shutdown: Arc::new(AtomicBool::new(false)),
            queue: Mutex::new(rx),
            workers: AtomicUsize::new(0),
            idle: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            open: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(0),
            threads: Mutex::new(Vec::new()),
        });
        let name = format!("{}-accept", shared.service.name());
        let s = Arc::clone(&shared);
        let acceptor = std::thread::Builder::new()
            .name(name)
            .spawn(move || accept_loop(&s, &listener, &tx))?;
        Ok(Server {
            shared,
            local,
            acceptor: Some(acceptor),
        })
    }

    /// The bound address (the real port when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// Stops accepting and shuts every open socket down; does not wait.
    pub fn begin_shutdown(&self) {
        if self.shared.shutdown.swap(true, Ordering::AcqRel) {
            return;
        }
        // Wake the accept loop, blocked in accept(): it sees the flag on the next connection.
        let wake = match self.local.ip() {
            ip if ip.is_unspecified() && ip.is_ipv4() => {
                SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), self.local.port())
            }
            ip if ip.is_unspecified() => {
                SocketAddr::new(std::net::Ipv6Addr::LOCALHOST.into(), self.local.port())
            }
            _ => self.local,
        };
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        for stream in self.shared.open.lock().values() {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    /// Waits for the accept thread and every worker to end.
    pub fn join(mut self) {
        self.begin_shutdown();
        if let Some(a) = self.acceptor.take() {
            let _ = a.join();
        }
        // Workers blocked on the queue wake when the accept loop drops the sender.
        let threads = std::mem::take(&mut *self.shared.threads.lock());
        for t in threads {
            let _ = t.join();
        }
        self.shared.service.stopped();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.begin_shutdown();
    }
}

fn accept_loop(shared: &Arc<Shared>, listener: &TcpListener, tx: &SyncSender<Connection>) {
    let name = shared.service.name();
    loop {
        let accepted = listener.accept();
        if shared.shutdown.load(Ordering::Acquire) {
            break;
        }
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // EMFILE and friends: back off instead of spinning.
                tracing::warn!("{name}: accept failed: {e}");
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        tracing::debug!("{name}: connection from {peer}");
        let _ = stream.set_read_timeout(Some(shared.limits.idle_timeout));
        let _ = stream.set_nodelay(true);
        let local = stream.local_addr().unwrap_or(listener_addr(listener));
        let conn = Connection {
            stream,
            peer,
            local,
            shutdown: Arc::clone(&shared.shutdown),
        };
        if shared.idle.load(Ordering::Acquire) <= shared.queued.load(Ordering::Acquire)
            && shared.workers.load(Ordering::Acquire) < shared.limits.max_workers
        {
            spawn_worker(shared);
        }
        shared.queued.fetch_add(1, Ordering::AcqRel);
        match tx.try_send(conn) {
            Ok(()) => {}
            Err(TrySendError::Full(conn)) => {
                shared.queued.fetch_sub(1, Ordering::AcqRel);
                tracing::warn!(
                    "{name}: {} connections already wait for a worker; closing the one from {}",
                    shared.limits.max_queued,
                    conn.peer
                );
                let _ = conn.stream.shutdown(Shutdown::Both);
            }
            Err(TrySendError::Disconnected(_)) => break,
        }
    }
}

fn listener_addr(listener: &TcpListener) -> SocketAddr {
    listener
        .local_addr()
        .unwrap_or_else(|_| SocketAddr::new(std::net::Ipv4Addr::UNSPECIFIED.into(), 0))
}

fn spawn_worker(shared: &Arc<Shared>) {
    let n = shared.workers.fetch_add(1, Ordering::AcqRel);
    let s = Arc::clone(shared);
    let spawned = std::thread::Builder::new()
        .name(format!("{}-worker-{n}", shared.service.name()))
        .spawn(move || worker_loop(&s));
    match spawned {
        Ok(handle) => shared.threads.lock().push(handle),
        Err(e) => {
            shared.workers.fetch_sub(1, Ordering::AcqRel);
            tracing::warn!(
                "{}: cannot start a worker thread: {e}",
                shared.service.name()
            );
        }
    }
}

fn worker_loop(shared: &Arc<Shared>) {
    loop {
        shared.idle.fetch_add(1, Ordering::AcqRel);
        let next = shared.queue.lock().recv();
        shared.idle.fetch_sub(1, Ordering::AcqRel);
        let Ok(conn) = next else { return };
        shared.queued.fetch_sub(1, Ordering::AcqRel);
        if shared.shutdown.load(Ordering::Acquire) {
            let _ = conn.stream.shutdown(Shutdown::Both);
            continue;
        }
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        if let Ok(clone) = conn.stream.try_clone() {
            shared.open.lock().insert(id, clone);
        }
        let peer = conn.peer;
        // A panic in a handler is a bug; it ends this connection only.
        let service = Arc::clone(&shared.service);
        let served = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| service.serve(conn)));
        if served.is_err() {
            tracing::error!(
                "{}: internal error serving {peer}; connection closed",
                service.name()
            );
        }
        if let Some(s) = shared.open.lock().remove(&id) {
            let _ = s.shutdown(Shutdown::Both);
        }
        tracing::debug!("{}: connection from {peer} closed", service.name());
    }
}
