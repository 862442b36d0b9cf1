//! `regionkv serve`, `regionkv thrift start` and `regionkv rest start`: HBase's Thrift1 and
//! REST gateways over a data directory (see `regionkv_gateway` and docs/gateway.md).
//!
//! `serve` runs both gateways over one Db (a data directory is locked by one process, so
//! they must share it); `thrift start` and `rest start` are HBase's command names for one
//! gateway, with HBase's default ports (9090, 8080). Each gateway prints exactly
//! `thrift listening on HOST:PORT` / `rest listening on HOST:PORT` on standard output once
//! it accepts connections (scripts and tests read these lines; port 0 picks a free port).
//! SIGINT and SIGTERM stop it: connections are closed, the Db is closed (acknowledged
//! writes are already in the WAL).

use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use regionkv::{Db, DbOptions};
use regionkv_gateway::{Gateway, GatewayConfig, Limits};

/// The options every gateway command takes.
#[derive(Debug, clap::Args)]
pub struct CommonArgs {
    /// The data directory; created if it does not exist
    #[arg(long, value_name = "DIR", default_value = "./regionkv-data")]
    data: PathBuf,

    /// The address to listen on. The gateways have no authentication (as HBase's without
    /// Kerberos): anything but a loopback address is reachable by others, with a warning
    #[arg(
        short = 'b',
        long = "bind",
        value_name = "ADDR",
        default_value = "127.0.0.1"
    )]
    bind: IpAddr,

    /// Refuse every mutation (HBase's `-ro` / `hbase.thrift.readonly`, `hbase.rest.readonly`)
    #[arg(long = "read-only", visible_alias = "readonly", short_alias = 'r')]
    read_only: bool,

    /// Worker threads per gateway, one per connection being served (HBase's
    /// hbase.thrift.maxWorkerThreads)
    #[arg(long = "workers", value_name = "N", default_value_t = 256,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    workers: u32,

    /// Connections that may wait for a worker before new ones are refused (HBase's
    /// hbase.thrift.maxQueuedRequests)
    #[arg(long = "queue", value_name = "N", default_value_t = Limits::default().max_queued)]
    queue: usize,

    /// Seconds a connection may stay silent before it is closed (HBase's
    /// hbase.thrift.server.socket.read.timeout)
    #[arg(long = "idle-timeout", value_name = "SECS", default_value_t = 60)]
    idle_timeout: u64,

    /// Largest Thrift frame or message in MB (HBase's hbase.thrift.framed.max_frame_size_in_mb)
    #[arg(long = "max-frame-mb", value_name = "MB", default_value_t = 2)]
    max_frame_mb: usize,

    /// Largest REST request body in MB
    #[arg(long = "max-body-mb", value_name = "MB", default_value_t = 64)]
    max_body_mb: usize,

    /// Open scanners per gateway
    #[arg(long = "max-scanners", value_name = "N", default_value_t = Limits::default().max_scanners)]
    max_scanners: usize,

    /// Seconds an unused scanner lives (HBase's scanner lease,
    /// hbase.client.scanner.timeout.period)
    #[arg(long = "scanner-lease", value_name = "SECS", default_value_t = 60)]
    scanner_lease: u64,
}

/// `regionkv serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The Thrift1 port (0: any free port)
    #[arg(long = "thrift", value_name = "PORT", default_value_t = 9090)]
    thrift: u16,

    /// The REST port (0: any free port)
    #[arg(long = "rest", value_name = "PORT", default_value_t = 8080)]
    rest: u16,

    /// Serve no Thrift gateway
    #[arg(long = "no-thrift", conflicts_with = "no_rest")]
    no_thrift: bool,

    /// Serve no REST gateway
    #[arg(long = "no-rest")]
    no_rest: bool,

    #[command(flatten)]
    common: CommonArgs,
}

/// `regionkv thrift start` / `regionkv rest start`.
#[derive(Debug, clap::Args)]
pub struct GatewayArgs {
    #[command(subcommand)]
    action: GatewayAction,
}

/// HBase's daemon verbs; only `start` (in the foreground) applies to a local process.
#[derive(Debug, clap::Subcommand)]
enum GatewayAction {
    /// Start the gateway in the foreground (stop it with Ctrl-C or SIGTERM)
    Start(StartArgs),
}

#[derive(Debug, clap::Args)]
struct StartArgs {
    /// The port (HBase's defaults: thrift 9090, rest 8080; 0: any free port)
    #[arg(short = 'p', long = "port", value_name = "PORT")]
    port: Option<u16>,

    /// Accepted for HBase's command line: regionkv's Thrift server detects framed
    /// transport from the first bytes of each connection
    #[arg(short = 'f', long = "framed", hide = true)]
    _framed: bool,

    /// Accepted for HBase's command line: the compact protocol is detected likewise
    #[arg(short = 'c', long = "compact", hide = true)]
    _compact: bool,

    /// Accepted for HBase's command line (server types): regionkv has one
    #[arg(
        long = "threadpool",
        alias = "hsha",
        alias = "nonblocking",
        alias = "threadedselector",
        hide = true
    )]
    _server_type: bool,

    #[command(flatten)]
    common: CommonArgs,
}

/// Which gateway `thrift start` / `rest start` means.
#[derive(Debug, Clone, Copy)]
pub enum Which {
    /// `regionkv thrift start`
    Thrift,
    /// `regionkv rest start`
    Rest,
}

/// Runs `regionkv serve`.
pub fn run_serve(args: &ServeArgs) -> ExitCode {
    let thrift = (!args.no_thrift).then_some(args.thrift);
    let rest = (!args.no_rest).then_some(args.rest);
    run(&args.common, thrift, rest)
}

/// Runs `regionkv thrift start` or `regionkv rest start`.
pub fn run_gateway(which: Which, args: &GatewayArgs) -> ExitCode {
    let GatewayAction::Start(start) = &args.action;
    match which {
        Which::Thrift => run(&start.common, Some(start.port.unwrap_or(9090)), None),
        Which::Rest => run(&start.common, None, Some(start.port.unwrap_or(8080))),
    }
}

fn run(common: &CommonArgs, thrift: Option<u16>, rest: Option<u16>) -> ExitCode {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        if let Err(e) = signal_hook::flag::register(signal, Arc::clone(&stop)) {
            eprintln!("ERROR: cannot install a handler for signal {signal}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if !common.bind.is_loopback() {
        tracing::warn!(
            "listening on {}: the gateways have no authentication; anyone who can reach \
             this address can read and change every table",
            common.bind
        );
    }
    let db = match Db::open(&common.data, DbOptions::default()) {
        Ok(db) => db,
        Err(regionkv::Error::Locked { .. }) => {
            eprintln!(
                "ERROR: data directory {} is in use by another process",
                common.data.display()
            );
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!(
                "ERROR: cannot open data directory {}: {}",
                common.data.display(),
                crate::shell::error_chain(&e)
            );
            return ExitCode::FAILURE;
        }
    };
    let limits = Limits {
        max_workers: common.workers as usize,
        max_queued: common.queue.max(1),
        idle_timeout: Duration::from_secs(common.idle_timeout.max(1)),
        max_thrift_message: common.max_frame_mb.max(1).saturating_mul(1024 * 1024),
        max_http_body: common.max_body_mb.max(1).saturating_mul(1024 * 1024),
        max_scanners: common.max_scanners.max(1),
        scanner_lease: Duration::from_secs(common.scanner_lease.max(1)),
        ..Limits::default()
    };
    let config = GatewayConfig {
        bind: common.bind,
        thrift_port: thrift,
        rest_port: rest,
        read_only: common.read_only,
        limits,
    };
    let gateway = match Gateway::start(db.clone(), config) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("ERROR: {e}");
            return ExitCode::FAILURE;
        }
    };
    {
        let mut out = std::io::stdout().lock();
        if let Some(addr) = gateway.thrift_addr() {
            let _ = writeln!(out, "thrift listening on {addr}");
        }
        if let Some(addr) = gateway.rest_addr() {
            let _ = writeln!(out, "rest listening on {addr}");
        }
        let _ = out.flush();
    }
    while !stop.load(Ordering::Acquire) {
        std::thread::sleep(Duration::from_millis(100));
    }
    tracing::info!("stopping the gateways");
    gateway.shutdown();
    match db.close() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "ERROR: closing {}: {}",
                common.data.display(),
                crate::shell::error_chain(&e)
            );
            ExitCode::FAILURE
        }
    }
}
