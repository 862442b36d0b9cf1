//! A fast Thrift1 client for the gateway benchmark (benches/gateway.sh): the work of the
//! happybase phases (batch puts of 1,000 rows through mutateRows, a scan read 1,000 rows per
//! scannerGetList, single-row getRowWithColumns), without Python's per-row cost, so the
//! server's CPU per row is measured with a client that keeps it busy.
//!
//! Usage: `thrift_load HOST:PORT SERVER_PID ROWS VALUE_SIZE [put]` — prints one JSON list
//! (`put`: the put phase only, for profiling).

use std::collections::BTreeMap;
use std::error::Error;
use std::net::TcpStream;
use std::time::Instant;

use regionkv_gateway::thrift1::generated::{
    BatchMutation, ColumnDescriptor, HbaseSyncClient, Mutation, THbaseSyncClient, TScan,
};
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};
use thrift::transport::{TBufferedReadTransport, TBufferedWriteTransport};

fn server_cpu(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let t = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (t(11) + t(12)) / 100.0
}

type Client = HbaseSyncClient<
    TBinaryInputProtocol<TBufferedReadTransport<TcpStream>>,
    TBinaryOutputProtocol<TBufferedWriteTransport<TcpStream>>,
>;

fn scan_all(c: &mut Client, table: &[u8], _rows: usize) -> Result<usize, Box<dyn Error>> {
    let scan = TScan {
        start_row: None,
        stop_row: None,
        timestamp: None,
        columns: None,
        caching: Some(1000),
        filter_string: None,
        batch_size: None,
        sort_columns: None,
        reversed: None,
        cache_blocks: None,
    };
    let id = c.scanner_open_with_scan(table.to_vec(), scan, BTreeMap::new())?;
    let mut n = 0;
    loop {
        let got = c.scanner_get_list(id, 1000)?;
        if got.is_empty() {
            break;
        }
        n += got.len();
    }
    c.scanner_close(id)?;
    Ok(n)
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (addr, pid, rows, value_size, only) = match args.as_slice() {
        [_, a, p, r, v] => (a, p, r, v, None),
        [_, a, p, r, v, o] => (a, p, r, v, Some(o.as_str())),
        _ => {
            return Err(
                "usage: thrift_load HOST:PORT SERVER_PID ROWS VALUE_SIZE [put|scan]".into(),
            );
        }
    };
    let (pid, rows, value_size): (u32, usize, usize) =
        (pid.parse()?, rows.parse()?, value_size.parse()?);
    let stream = TcpStream::connect(addr)?;
    stream.set_nodelay(true)?;
    let input = TBinaryInputProtocol::new(TBufferedReadTransport::new(stream.try_clone()?), true);
    let output = TBinaryOutputProtocol::new(TBufferedWriteTransport::new(stream), true);
    let mut c: Client = HbaseSyncClient::new(input, output);
    let table = b"thrift_load".to_vec();
    if c.get_table_names()?.contains(&table) {
        c.disable_table(table.clone())?;
        c.delete_table(table.clone())?;
    }
    let cd = ColumnDescriptor {
        name: Some(b"cf:".to_vec()),
        max_versions: Some(1),
        compression: Some("NONE".into()),
        in_memory: Some(false),
        bloom_filter_type: Some("ROW".into()),
        bloom_filter_vector_size: Some(0),
        bloom_filter_nb_hashes: Some(0),
        block_cache_enabled: Some(true),
        time_to_live: Some(-1),
    };
    c.create_table(table.clone(), vec![cd])?;
    let value = vec![b'v'; value_size];
    let key = |i: usize| format!("{i:016}").into_bytes();
    let mut phases = Vec::new();
    // `passes`: how many times the phase goes over the rows (its per-row figures count them
    // all); a scan pass takes a fraction of a second, and the CPU clock ticks every 10 ms.
    let mut phase = |label: &str,
                     passes: usize,
                     f: &mut dyn FnMut() -> Result<usize, Box<dyn Error>>|
     -> Result<(), Box<dyn Error>> {
        let (c0, w0) = (server_cpu(pid), Instant::now());
        let n = f()?;
        let (cpu, wall) = (server_cpu(pid) - c0, w0.elapsed().as_secs_f64());
        if n != rows * passes {
            return Err(format!("{label}: {n} of {} rows", rows * passes).into());
        }
        eprintln!(
            "{label:<24} {:9.0} rows/s  server {:.2} us/row",
            n as f64 / wall,
            cpu * 1e6 / n as f64
        );
        phases.push(format!(
            "{{\"phase\":\"{label}\",\"rows\":{n},\"wall_s\":{wall},\"rows_per_s\":{},\"server_cpu_s\":{cpu},\"server_cpu_us_per_row\":{}}}",
            n as f64 / wall,
            cpu * 1e6 / n as f64
        ));
        Ok(())
    };
    phase("rust thrift batch put", 1, &mut || {
        for start in (0..rows).step_by(1000) {
            let batch = (start..(start + 1000).min(rows))
                .map(|i| BatchMutation {
                    row: Some(key(i)),
                    mutations: Some(vec![Mutation {
                        is_delete: Some(false),
                        column: Some(b"cf:a".to_vec()),
                        value: Some(value.clone()),
                        write_to_w_a_l: Some(true),
                    }]),
                })
                .collect();
            c.mutate_rows(table.clone(), batch, BTreeMap::new())?;
        }
        Ok(rows)
    })?;
    if only == Some("put") {
        println!("[{}]", phases.join(",\n"));
        return Ok(());
    }
    let scan_reps = if only == Some("scan") { 5 } else { 1 };
    for _ in 0..scan_reps {
        phase("rust thrift scan", 3, &mut || {
            let mut n = 0;
            for _ in 0..3 {
                n += scan_all(&mut c, &table, rows)?;
            }
            Ok(n)
        })?;
    }
    if only == Some("scan") {
        println!("[{}]", phases.join(",\n"));
        return Ok(());
    }
    phase("rust thrift get", 1, &mut || {
        let mut n = 0;
        for i in 0..rows {
            n += c
                .get_row_with_columns(table.clone(), key(i), Vec::new(), BTreeMap::new())?
                .len();
        }
        Ok(n)
    })?;
    println!("[{}]", phases.join(",\n"));
    Ok(())
}
