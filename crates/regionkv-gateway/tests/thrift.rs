//! The Thrift1 gateway through the generated Rust client: every method's HBase rule that
//! the happybase suite (crates/regionkv-cli/tests/gateway_clients.rs) does not reach, and the
//! server's robustness — protocol sniffing, limits, garbage, abrupt disconnects, unknown
//! methods, scanner leases, read-only mode.

use std::collections::BTreeMap;
use std::error::Error;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use regionkv::{Db, DbOptions};
use regionkv_gateway::thrift1::generated::{
    BatchMutation, ColumnDescriptor, HbaseSyncClient, Mutation, TAccessControlEntity, TAppend,
    THbaseSyncClient, TIncrement, TPermissionScope, TScan, TThriftServerType,
};
use regionkv_gateway::{Gateway, GatewayConfig, Limits};
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TInputProtocol, TOutputProtocol,
};
use thrift::transport::{TFramedReadTransport, TFramedWriteTransport};

type R<T = ()> = Result<T, Box<dyn Error>>;
type Client = HbaseSyncClient<Box<dyn TInputProtocol + Send>, Box<dyn TOutputProtocol + Send>>;

struct Fixture {
    gateway: Option<Gateway>,
    db: Db,
    _dir: tempfile::TempDir,
}

impl Fixture {
    fn new(config: GatewayConfig) -> R<Fixture> {
        let dir = tempfile::tempdir()?;
        let db = Db::open(dir.path(), DbOptions::default())?;
        let gateway = Gateway::start(
            db.clone(),
            GatewayConfig {
                thrift_port: Some(0),
                ..config
            },
        )?;
        Ok(Fixture {
            gateway: Some(gateway),
            db,
            _dir: dir,
        })
    }

    fn default() -> R<Fixture> {
        Fixture::new(GatewayConfig::default())
    }

    fn addr(&self) -> SocketAddr {
        self.gateway
            .as_ref()
            .and_then(Gateway::thrift_addr)
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    fn client(&self, framed: bool, compact: bool) -> R<Client> {
        connect(self.addr(), framed, compact)
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if let Some(g) = self.gateway.take() {
            g.shutdown();
        }
        let _ = self.db.close();
    }
}

fn connect(addr: SocketAddr, framed: bool, compact: bool) -> R<Client> {
    let stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    let (r, w) = (stream.try_clone()?, stream);
    let (input, output): (
        Box<dyn TInputProtocol + Send>,
        Box<dyn TOutputProtocol + Send>,
    ) = match (framed, compact) {
        (false, false) => (
            Box::new(TBinaryInputProtocol::new(r, true)),
            Box::new(TBinaryOutputProtocol::new(w, true)),
        ),
        (false, true) => (
            Box::new(TCompactInputProtocol::new(r)),
            Box::new(TCompactOutputProtocol::new(w)),
        ),
        (true, false) => (
            Box::new(TBinaryInputProtocol::new(
                TFramedReadTransport::new(r),
                true,
            )),
            Box::new(TBinaryOutputProtocol::new(
                TFramedWriteTransport::new(w),
                true,
            )),
        ),
        (true, true) => (
            Box::new(TCompactInputProtocol::new(TFramedReadTransport::new(r))),
            Box::new(TCompactOutputProtocol::new(TFramedWriteTransport::new(w))),
        ),
    };
    Ok(HbaseSyncClient::new(input, output))
}

/// A TScan with nothing set (the generated `Default` sets every optional field).
fn tscan() -> TScan {
    TScan {
        start_row: None,
        stop_row: None,
        timestamp: None,
        columns: None,
        caching: None,
        filter_string: None,
        batch_size: None,
        sort_columns: None,
        reversed: None,
        cache_blocks: None,
    }
}

fn no_attrs() -> BTreeMap<Vec<u8>, Vec<u8>> {
    BTreeMap::new()
}

fn family(name: &str, versions: i32) -> ColumnDescriptor {
    ColumnDescriptor {
        name: Some(format!("{name}:").into_bytes()),
        max_versions: Some(versions),
        compression: Some("NONE".into()),
        in_memory: Some(false),
        bloom_filter_type: Some("NONE".into()),
        bloom_filter_vector_size: Some(0),
        bloom_filter_nb_hashes: Some(0),
        block_cache_enabled: Some(false),
        time_to_live: Some(-1),
    }
}

fn put(column: &str, value: &str) -> Mutation {
    Mutation {
        is_delete: Some(false),
        column: Some(column.as_bytes().to_vec()),
        value: Some(value.as_bytes().to_vec()),
        write_to_w_a_l: Some(true),
    }
}

fn delete(column: &str) -> Mutation {
    Mutation {
        is_delete: Some(true),
        column: Some(column.as_bytes().to_vec()),
        value: None,
        write_to_w_a_l: Some(true),
    }
}

/// (column, value, timestamp) of a getRow result, in column order.
fn row_cells(c: &mut Client, table: &str, row: &str) -> R<Vec<(String, String, i64)>> {
    let rows = c.get_row(table.into(), row.into(), no_attrs())?;
    Ok(rows
        .into_iter()
        .flat_map(|r| r.columns.unwrap_or_default())
        .map(|(k, cell)| {
            (
                String::from_utf8_lossy(&k).into_owned(),
                String::from_utf8_lossy(&cell.value.unwrap_or_default()).into_owned(),
                cell.timestamp.unwrap_or(-1),
            )
        })
        .collect())
}

fn user_error_text(e: &thrift::Error) -> String {
    match e {
        thrift::Error::User(u) => format!("{u:?}"),
        other => format!("{other:?}"),
    }
}

#[test]
fn every_wire_speaks_to_the_same_port() -> R {
    let f = Fixture::default()?;
    for (framed, compact) in [(false, false), (false, true), (true, false), (true, true)] {
        let mut c = f.client(framed, compact)?;
        assert_eq!(c.get_thrift_server_type()?, TThriftServerType::ONE);
        assert_eq!(c.get_table_names()?, Vec::<Vec<u8>>::new());
    }
    Ok(())
}

#[test]
fn table_admin_follows_hbase() -> R {
    let f = Fixture::default()?;
    let mut c = f.client(false, false)?;
    c.create_table("t".into(), vec![family("cf", 2), family("cg", 3)])?;
    let again = c.create_table("t".into(), vec![family("cf", 1)]);
    assert!(
        user_error_text(&again.err().ok_or("created twice")?).contains("table name already in use")
    );
    let mut bad = family("cx", 1);
    bad.bloom_filter_type = Some("BOGUS".into());
    let e = c
        .create_table("u".into(), vec![bad])
        .err()
        .ok_or("bad bloom accepted")?;
    assert!(user_error_text(&e).contains("IllegalArgument"), "{e:?}");
    let descs = c.get_column_descriptors("t".into())?;
    let keys: Vec<_> = descs.keys().cloned().collect();
    assert_eq!(keys, vec![b"cf:".to_vec(), b"cg:".to_vec()]);
    assert_eq!(descs[&b"cf:".to_vec()].max_versions, Some(2));
    // A TTL of 0 or less is HBase's FOREVER.
    assert_eq!(descs[&b"cf:".to_vec()].time_to_live, Some(i32::MAX));
    let enabled = c.get_table_names_with_is_table_enabled()?;
    assert_eq!(enabled.get(b"t".as_slice()), Some(&true));
    c.disable_table(b"t".to_vec())?;
    assert!(!c.is_table_enabled(b"t".to_vec())?);
    c.enable_table(b"t".to_vec())?;
    let e = c
        .delete_table("t".into())
        .err()
        .ok_or("enabled table deleted")?;
    assert!(
        user_error_text(&e).contains("TableNotDisabledException"),
        "{e:?}"
    );
    let e = c
        .delete_table("missing".into())
        .err()
        .ok_or("missing table deleted")?;
    assert!(
        user_error_text(&e).contains("table does not exist"),
        "{e:?}"
    );
    let e = c
        .is_table_enabled(b"missing".to_vec())
        .err()
        .ok_or("missing table enabled")?;
    assert!(
        user_error_text(&e).contains("TableNotFoundException: missing"),
        "{e:?}"
    );
    assert!(c.get_table_regions("missing".into())?.is_empty());
    // compact and majorCompact take a table or a region name.
    let regions = c.get_table_regions("t".into())?;
    assert_eq!(regions.len(), 1);
    c.compact(regions[0].name.clone().unwrap_or_default())?;
    c.major_compact(b"t".to_vec())?;
    assert!(!c.get_cluster_id()?.is_empty());
    let ace = TAccessControlEntity {
        username: "bob".into(),
        scope: TPermissionScope::TABLE,
        actions: "R".into(),
        table_name: Some(b"t".to_vec()),
        ns_name: None,
    };
    assert!(
        c.grant(ace.clone()).is_err(),
        "no access control to grant with"
    );
    assert!(c.revoke(ace).is_err());
    Ok(())
}

#[test]
fn reads_follow_hbase() -> R {
    let f = Fixture::default()?;
    let mut c = f.client(true, true)?;
    c.create_table("t".into(), vec![family("cf", 5)])?;
    for ts in [10, 20, 30] {
        c.mutate_row_ts(
            "t".into(),
            "r".into(),
            vec![put("cf:a", &format!("a{ts}"))],
            ts,
            no_attrs(),
        )?;
    }
    c.mutate_row("t".into(), "r".into(), vec![put("cf:b", "b")], no_attrs())?;
    let cells = c.get("t".into(), "r".into(), "cf:a".into(), no_attrs())?;
    assert_eq!(cells.len(), 1);
    assert_eq!(cells[0].value.as_deref(), Some(&b"a30"[..]));
    // A bare family reads the whole family.
    assert_eq!(
        c.get("t".into(), "r".into(), "cf".into(), no_attrs())?
            .len(),
        2
    );
    let ver = c.get_ver("t".into(), "r".into(), "cf:a".into(), 2, no_attrs())?;
    assert_eq!(
        ver.iter()
            .map(|c| c.timestamp.unwrap_or(0))
            .collect::<Vec<_>>(),
        [30, 20]
    );
    // *Ts reads exclude the timestamp itself.
    let ver = c.get_ver_ts("t".into(), "r".into(), "cf:a".into(), 30, 10, no_attrs())?;
    assert_eq!(
        ver.iter()
            .map(|c| c.timestamp.unwrap_or(0))
            .collect::<Vec<_>>(),
        [20, 10]
    );
    let rows = c.get_row_ts("t".into(), "r".into(), 20, no_attrs())?;
    let cols = rows[0].columns.clone().unwrap_or_default();
    assert_eq!(cols[&b"cf:a".to_vec()].timestamp, Some(10));
    assert!(
        c.get_row_ts("t".into(), "r".into(), 10, no_attrs())?
            .is_empty()
    );
    let rows = c.get_row_with_columns_ts(
        "t".into(),
        "r".into(),
        vec!["cf:b".into()],
        i64::MAX,
        no_attrs(),
    )?;
    assert_eq!(rows[0].columns.as_ref().map(BTreeMap::len), Some(1));
    // Missing rows are left out of getRows.
    let rows = c.get_rows(
        "t".into(),
        vec!["x".into(), "r".into(), "y".into()],
        no_attrs(),
    )?;
    assert_eq!(rows.len(), 1);
    let rows = c.get_rows_ts("t".into(), vec!["r".into()], 25, no_attrs())?;
    assert_eq!(
        rows[0]
            .columns
            .as_ref()
            .map(|c| c[&b"cf:a".to_vec()].timestamp),
        Some(Some(20))
    );
    let rows = c.get_rows_with_columns_ts(
        "t".into(),
        vec!["r".into()],
        vec!["cf:a".into()],
        15,
        no_attrs(),
    )?;
    assert_eq!(
        rows[0]
            .columns
            .as_ref()
            .map(|c| c[&b"cf:a".to_vec()].timestamp),
        Some(Some(10))
    );
    assert!(c.get_row("t".into(), "none".into(), no_attrs())?.is_empty());
    let e = c
        .get_row("missing".into(), "r".into(), no_attrs())
        .err()
        .ok_or("missing table read")?;
    assert!(
        user_error_text(&e).contains("TableNotFoundException"),
        "{e:?}"
    );
    Ok(())
}

#[test]
fn writes_follow_hbase() -> R {
    let f = Fixture::default()?;
    let mut c = f.client(false, true)?;
    c.create_table("t".into(), vec![family("cf", 5), family("cg", 5)])?;
    // mutateRow: a put of a bare family is skipped, the rest applies.
    c.mutate_row(
        "t".into(),
        "r".into(),
        vec![put("cf", "ignored"), put("cf:a", "1")],
        no_attrs(),
    )?;
    assert_eq!(
        row_cells(&mut c, "t", "r")?
            .iter()
            .map(|x| x.0.clone())
            .collect::<Vec<_>>(),
        ["cf:a"]
    );
    // mutateRows: the same put is an IllegalArgument, and nothing of the batch applies.
    let batch = vec![BatchMutation {
        row: Some(b"s".to_vec()),
        mutations: Some(vec![put("cf:a", "x"), put("cf", "bad")]),
    }];
    let e = c
        .mutate_rows("t".into(), batch, no_attrs())
        .err()
        .ok_or("bare family put accepted")?;
    assert!(
        user_error_text(&e).contains("Invalid famAndQf provided"),
        "{e:?}"
    );
    assert!(row_cells(&mut c, "t", "s")?.is_empty());
    // mutateRowTs: deletes of the row first, then the put, both at the timestamp.
    for ts in [10, 20, 30] {
        c.mutate_row_ts(
            "t".into(),
            "v".into(),
            vec![put("cf:a", &format!("{ts}"))],
            ts,
            no_attrs(),
        )?;
    }
    c.mutate_row_ts(
        "t".into(),
        "v".into(),
        vec![delete("cf:a"), put("cg:b", "new")],
        20,
        no_attrs(),
    )?;
    let ver = c.get_ver("t".into(), "v".into(), "cf:a".into(), 10, no_attrs())?;
    assert_eq!(
        ver.iter()
            .map(|c| c.timestamp.unwrap_or(0))
            .collect::<Vec<_>>(),
        [30],
        "versions <= 20 deleted"
    );
    let b = c.get("t".into(), "v".into(), "cg:b".into(), no_attrs())?;
    assert_eq!(b[0].timestamp, Some(20));
    // mutateRowsTs: every put, then every delete.
    let batch = vec![
        BatchMutation {
            row: Some(b"w".to_vec()),
            mutations: Some(vec![put("cf:a", "p")]),
        },
        BatchMutation {
            row: Some(b"w".to_vec()),
            mutations: Some(vec![delete("cf")]),
        },
    ];
    c.mutate_rows_ts("t".into(), batch, 50, no_attrs())?;
    assert!(
        row_cells(&mut c, "t", "w")?.is_empty(),
        "the delete at 50 covers the put at 50"
    );
    // deleteAll / deleteAllTs / deleteAllRow / deleteAllRowTs.
    for ts in [10, 20] {
        c.mutate_row_ts(
            "t".into(),
            "d".into(),
            vec![put("cf:a", "a"), put("cf:b", "b"), put("cg:c", "c")],
            ts,
            no_attrs(),
        )?;
    }
    c.delete_all_ts("t".into(), "d".into(), "cf:a".into(), 10, no_attrs())?;
    assert_eq!(
        c.get_ver("t".into(), "d".into(), "cf:a".into(), 5, no_attrs())?
            .len(),
        1
    );
    c.delete_all("t".into(), "d".into(), "cf:b".into(), no_attrs())?;
    assert!(
        c.get("t".into(), "d".into(), "cf:b".into(), no_attrs())?
            .is_empty()
    );
    c.delete_all_row_ts("t".into(), "d".into(), 10, no_attrs())?;
    assert_eq!(
        c.get_ver("t".into(), "d".into(), "cg:c".into(), 5, no_attrs())?
            .len(),
        1
    );
    c.delete_all_row("t".into(), "d".into(), no_attrs())?;
    assert!(row_cells(&mut c, "t", "d")?.is_empty());
    // Increments.
    assert_eq!(
        c.atomic_increment("t".into(), "n".into(), "cf:c".into(), 5)?,
        5
    );
    // A bare family increments the empty qualifier.
    assert_eq!(
        c.atomic_increment("t".into(), "n".into(), "cf".into(), 2)?,
        2
    );
    assert_eq!(
        c.get("t".into(), "n".into(), "cf:".into(), no_attrs())?[0]
            .value
            .as_deref(),
        Some(&2i64.to_be_bytes()[..])
    );
    let inc = |col: &str, by: i64| TIncrement {
        table: Some(b"t".to_vec()),
        row: Some(b"n".to_vec()),
        column: Some(col.as_bytes().to_vec()),
        ammount: Some(by),
    };
    c.increment(inc("cf:c", 10))?;
    c.increment_rows(vec![inc("cf:c", 1), inc("cf:c", 1)])?;
    assert_eq!(
        c.atomic_increment("t".into(), "n".into(), "cf:c".into(), 0)?,
        17
    );
    let mut no_row = inc("cf:c", 1);
    no_row.row = Some(Vec::new());
    assert!(matches!(
        c.increment(no_row),
        Err(thrift::Error::Application(_))
    ));
    // Append returns the new values.
    c.mutate_row("t".into(), "a".into(), vec![put("cf:s", "ab")], no_attrs())?;
    let cells = c.append(TAppend {
        table: Some(b"t".to_vec()),
        row: Some(b"a".to_vec()),
        columns: Some(vec![b"cf:s".to_vec()]),
        values: Some(vec![b"cd".to_vec()]),
    })?;
    assert_eq!(cells[0].value.as_deref(), Some(&b"abcd"[..]));
    // checkAndPut: an absent expected value means "the column does not exist".
    let m = put("cf:k", "first");
    assert!(c.check_and_put(
        "t".into(),
        "k".into(),
        "cf:k".into(),
        Vec::new(),
        m,
        no_attrs()
    )?);
    let m = put("cf:k", "second");
    assert!(!c.check_and_put(
        "t".into(),
        "k".into(),
        "cf:k".into(),
        Vec::new(),
        m.clone(),
        no_attrs()
    )?);
    assert!(!c.check_and_put(
        "t".into(),
        "k".into(),
        "cf:k".into(),
        b"nope".to_vec(),
        m.clone(),
        no_attrs()
    )?);
    assert!(c.check_and_put(
        "t".into(),
        "k".into(),
        "cf:k".into(),
        b"first".to_vec(),
        m,
        no_attrs()
    )?);
    assert_eq!(
        c.get("t".into(), "k".into(), "cf:k".into(), no_attrs())?[0]
            .value
            .as_deref(),
        Some(&b"second"[..])
    );
    let e = c
        .mutate_row("t".into(), "r".into(), vec![put("zz:a", "1")], no_attrs())
        .err()
        .ok_or("unknown family")?;
    assert!(
        user_error_text(&e).contains("NoSuchColumnFamilyException"),
        "{e:?}"
    );
    Ok(())
}

#[test]
fn scanners_follow_hbase() -> R {
    let f = Fixture::default()?;
    let mut c = f.client(true, false)?;
    c.create_table("t".into(), vec![family("cf", 3)])?;
    for i in 0..20 {
        c.mutate_row_ts(
            "t".into(),
            format!("k{i:02}").into_bytes(),
            vec![put("cf:a", &i.to_string()), put("cf:b", "b")],
            100 + i,
            no_attrs(),
        )?;
    }
    c.mutate_row("t".into(), "p1".into(), vec![put("cf:a", "x")], no_attrs())?;
    c.mutate_row("t".into(), "p2".into(), vec![put("cf:a", "y")], no_attrs())?;
    c.mutate_row("t".into(), "q".into(), vec![put("cf:a", "z")], no_attrs())?;
    let rows = |c: &mut Client, id| -> R<Vec<String>> {
        let mut out = Vec::new();
        loop {
            let batch = c.scanner_get_list(id, 7)?;
            if batch.is_empty() {
                break;
            }
            out.extend(
                batch
                    .into_iter()
                    .map(|r| String::from_utf8_lossy(&r.row.unwrap_or_default()).into_owned()),
            );
        }
        c.scanner_close(id)?;
        Ok(out)
    };
    let id = c.scanner_open("t".into(), "k18".into(), vec![], no_attrs())?;
    assert_eq!(rows(&mut c, id)?, ["k18", "k19", "p1", "p2", "q"]);
    let id = c.scanner_open_with_stop(
        "t".into(),
        "k05".into(),
        "k08".into(),
        vec!["cf:b".into()],
        no_attrs(),
    )?;
    assert_eq!(rows(&mut c, id)?, ["k05", "k06", "k07"]);
    let id = c.scanner_open_with_prefix("t".into(), "p".into(), vec![], no_attrs())?;
    assert_eq!(rows(&mut c, id)?, ["p1", "p2"]);
    // scannerOpenTs: cells below the timestamp only; rows left empty are skipped.
    let id = c.scanner_open_ts("t".into(), "".into(), vec![], 103, no_attrs())?;
    assert_eq!(rows(&mut c, id)?, ["k00", "k01", "k02"]);
    let id = c.scanner_open_with_stop_ts(
        "t".into(),
        "k01".into(),
        "k05".into(),
        vec![],
        103,
        no_attrs(),
    )?;
    assert_eq!(rows(&mut c, id)?, ["k01", "k02"]);
    // scannerOpenWithScan: sortColumns, batchSize, reversed, filter.
    let scan = TScan {
        start_row: Some(b"k03".to_vec()),
        stop_row: Some(b"k05".to_vec()),
        sort_columns: Some(true),
        batch_size: Some(1),
        ..tscan()
    };
    let id = c.scanner_open_with_scan("t".into(), scan, no_attrs())?;
    let got = c.scanner_get_list(id, 10)?;
    assert_eq!(got.len(), 4, "batch 1 splits each two-cell row in two");
    assert!(
        got.iter()
            .all(|r| r.columns.is_none() && r.sorted_columns.as_ref().map(Vec::len) == Some(1))
    );
    c.scanner_close(id)?;
    let scan = TScan {
        start_row: Some(b"k02".to_vec()),
        stop_row: Some(b"k00".to_vec()),
        reversed: Some(true),
        ..tscan()
    };
    let id = c.scanner_open_with_scan("t".into(), scan, no_attrs())?;
    assert_eq!(rows(&mut c, id)?, ["k02", "k01"]);
    // cacheBlocks (HBase's handler passes it to Scan#setCacheBlocks): the same rows.
    for cache_blocks in [false, true] {
        let scan = TScan {
            start_row: Some(b"k01".to_vec()),
            stop_row: Some(b"k03".to_vec()),
            cache_blocks: Some(cache_blocks),
            ..tscan()
        };
        let id = c.scanner_open_with_scan("t".into(), scan, no_attrs())?;
        assert_eq!(rows(&mut c, id)?, ["k01", "k02"]);
    }
    let scan = TScan {
        filter_string: Some(b"RowFilter(=, 'regexstring:k1[24]')".to_vec()),
        ..tscan()
    };
    let id = c.scanner_open_with_scan("t".into(), scan, no_attrs())?;
    assert_eq!(rows(&mut c, id)?, ["k12", "k14"]);
    let scan = TScan {
        filter_string: Some(b"NoSuchFilter(".to_vec()),
        ..tscan()
    };
    assert!(matches!(
        c.scanner_open_with_scan("t".into(), scan, no_attrs()),
        Err(thrift::Error::Application(_))
    ));
    // Unknown ids.
    for e in [
        c.scanner_get(12345).err(),
        c.scanner_close(12345).err(),
        c.scanner_get_list(-1, 1).err(),
    ] {
        assert!(
            user_error_text(&e.ok_or("unknown scanner accepted")?)
                .contains("scanner ID is invalid")
        );
    }
    // Ids count up from 0 (HBase's numbering).
    let id = c.scanner_open("t".into(), "".into(), vec![], no_attrs())?;
    assert_eq!(id, 10);
    // getRegionInfo takes a hbase:meta row key.
    let info = c.get_region_info(b"t,k05,99999999999999".to_vec())?;
    assert_eq!(
        (info.start_key.as_deref(), info.end_key.as_deref()),
        (Some(&b""[..]), Some(&b""[..]))
    );
    assert!(c.get_region_info(b"nosuchtable,x,1".to_vec()).is_err());
    Ok(())
}

#[test]
fn unknown_methods_get_hbase_s_answer_and_the_connection_stays() -> R {
    let f = Fixture::default()?;
    let s = TcpStream::connect(f.addr())?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    // getRowOrBefore exists only in happybase's old IDL.
    let mut out = TBinaryOutputProtocol::new(s.try_clone()?, true);
    out.write_message_begin(&thrift::protocol::TMessageIdentifier::new(
        "getRowOrBefore",
        thrift::protocol::TMessageType::Call,
        1,
    ))?;
    out.write_struct_begin(&thrift::protocol::TStructIdentifier::new("args"))?;
    out.write_field_begin(&thrift::protocol::TFieldIdentifier::new(
        "tableName",
        thrift::protocol::TType::String,
        1,
    ))?;
    out.write_bytes(b"t")?;
    out.write_field_end()?;
    out.write_field_stop()?;
    out.write_struct_end()?;
    out.write_message_end()?;
    out.flush()?;
    let mut input = TBinaryInputProtocol::new(s.try_clone()?, true);
    let ident = input.read_message_begin()?;
    assert_eq!(
        ident.message_type,
        thrift::protocol::TMessageType::Exception
    );
    let e = thrift::Error::read_application_error_from_in_protocol(&mut input)?;
    assert_eq!(e.message, "Invalid method name: 'getRowOrBefore'");
    input.read_message_end()?;
    // The same connection still serves calls.
    let mut c = HbaseSyncClient::new(input, out);
    assert_eq!(c.get_thrift_server_type()?, TThriftServerType::ONE);
    Ok(())
}

#[test]
fn garbage_and_oversized_frames_close_only_that_connection() -> R {
    let f = Fixture::new(GatewayConfig {
        limits: Limits {
            max_thrift_message: 64 * 1024,
            ..Limits::default()
        },
        ..GatewayConfig::default()
    })?;
    let mut healthy = f.client(false, false)?;
    assert_eq!(healthy.get_thrift_server_type()?, TThriftServerType::ONE);
    let mut probes: Vec<Vec<u8>> = vec![
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        vec![0x00, 0x00, 0x00, 0x10, 0x42, 1, 2, 3],
        // A frame announcing 1 GB.
        vec![0x40, 0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x01],
        // Strict binary with a 2 GB method-name length.
        vec![0x80, 0x01, 0x00, 0x01, 0x7f, 0xff, 0xff, 0xff],
        // Compact with a garbage header.
        vec![0x82, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
    ];
    // An unframed message larger than the limit (a 1 MB string argument).
    let mut big = vec![0x80, 0x01, 0x00, 0x01, 0, 0, 0, 3];
    big.extend_from_slice(b"get");
    big.extend_from_slice(&[0, 0, 0, 1, 11, 0, 1, 0, 0x10, 0, 0]);
    big.extend(std::iter::repeat_n(b'x', 1 << 20));
    probes.push(big);
    for probe in probes {
        let mut s = TcpStream::connect(f.addr())?;
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        let _ = s.write_all(&probe);
        let mut buf = [0u8; 256];
        // The server closes the connection (EOF or reset), after at most an error reply.
        let mut closed = false;
        for _ in 0..4 {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => {
                    closed = true;
                    break;
                }
                Ok(_) => {}
            }
        }
        assert!(
            closed,
            "the server kept a connection that sent {:?}",
            &probe[..probe.len().min(16)]
        );
        assert_eq!(healthy.get_thrift_server_type()?, TThriftServerType::ONE);
    }
    Ok(())
}

#[test]
fn a_client_killed_mid_request_leaves_the_server_serving() -> R {
    let f = Fixture::default()?;
    let mut c = f.client(false, false)?;
    c.create_table("t".into(), vec![family("cf", 1)])?;
    for cut in [1usize, 5, 9, 20] {
        let mut s = TcpStream::connect(f.addr())?;
        // The first bytes of a mutateRow call, then the client disappears.
        let mut msg = vec![0x80, 0x01, 0x00, 0x01, 0, 0, 0, 9];
        msg.extend_from_slice(b"mutateRow");
        msg.extend_from_slice(&[0, 0, 0, 7, 11, 0, 1, 0, 0, 0, 1, b't']);
        s.write_all(&msg[..cut.min(msg.len())])?;
        drop(s);
    }
    assert_eq!(c.get_table_names()?, vec![b"t".to_vec()]);
    let mut fresh = f.client(true, true)?;
    assert_eq!(fresh.get_table_names()?, vec![b"t".to_vec()]);
    Ok(())
}

#[test]
fn idle_connections_are_closed_after_the_timeout() -> R {
    let f = Fixture::new(GatewayConfig {
        limits: Limits {
            idle_timeout: Duration::from_millis(300),
            ..Limits::default()
        },
        ..GatewayConfig::default()
    })?;
    let mut s = TcpStream::connect(f.addr())?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut buf = [0u8; 1];
    let started = std::time::Instant::now();
    let n = s.read(&mut buf).unwrap_or(0);
    assert_eq!(n, 0, "an idle connection is closed");
    assert!(started.elapsed() < Duration::from_secs(5));
    Ok(())
}

#[test]
fn scanners_are_bounded_and_leased() -> R {
    let f = Fixture::new(GatewayConfig {
        limits: Limits {
            max_scanners: 3,
            scanner_lease: Duration::from_millis(300),
            ..Limits::default()
        },
        ..GatewayConfig::default()
    })?;
    let mut c = f.client(false, false)?;
    c.create_table("t".into(), vec![family("cf", 1)])?;
    let ids: Vec<i32> = (0..3)
        .map(|_| c.scanner_open("t".into(), "".into(), vec![], no_attrs()))
        .collect::<Result<_, _>>()?;
    let e = c
        .scanner_open("t".into(), "".into(), vec![], no_attrs())
        .err()
        .ok_or("fourth scanner")?;
    assert!(
        user_error_text(&e).contains("too many open scanners"),
        "{e:?}"
    );
    c.scanner_close(ids[0])?;
    let kept = c.scanner_open("t".into(), "".into(), vec![], no_attrs())?;
    // Keep one scanner in use past the lease; the others expire.
    for _ in 0..6 {
        std::thread::sleep(Duration::from_millis(100));
        c.scanner_get_list(kept, 1)?;
    }
    assert!(c.scanner_get(ids[1]).is_err(), "an unused scanner expired");
    assert!(c.scanner_get(kept).is_ok(), "a used scanner lives on");
    Ok(())
}

#[test]
fn read_only_refuses_every_mutation() -> R {
    let dir = tempfile::tempdir()?;
    {
        let db = Db::open(dir.path(), DbOptions::default())?;
        let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
        db.admin()
            .create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
        db.table("t")?
            .put(&regionkv::Put::new("r").add_column("cf", "a", "v"))?;
        db.close()?;
    }
    let db = Db::open(dir.path(), DbOptions::default())?;
    let g = Gateway::start(
        db.clone(),
        GatewayConfig {
            thrift_port: Some(0),
            read_only: true,
            ..Default::default()
        },
    )?;
    let mut c = connect(g.thrift_addr().ok_or("no thrift")?, false, false)?;
    let attempts: Vec<thrift::Result<()>> = vec![
        c.mutate_row("t".into(), "r".into(), vec![put("cf:a", "x")], no_attrs()),
        c.mutate_rows("t".into(), vec![], no_attrs()),
        c.delete_all_row("t".into(), "r".into(), no_attrs()),
        c.atomic_increment("t".into(), "r".into(), "cf:n".into(), 1)
            .map(|_| ()),
        c.create_table("u".into(), vec![family("cf", 1)]),
        c.disable_table(b"t".to_vec()),
        c.delete_table("t".into()),
        c.compact(b"t".to_vec()),
    ];
    for a in attempts {
        let e = a.err().ok_or("a mutation passed in read-only mode")?;
        assert!(user_error_text(&e).contains("Read-only mode"), "{e:?}");
    }
    assert_eq!(
        c.get("t".into(), "r".into(), "cf:a".into(), no_attrs())?[0]
            .value
            .as_deref(),
        Some(&b"v"[..])
    );
    g.shutdown();
    db.close()?;
    Ok(())
}

#[test]
fn connections_beyond_the_queue_are_refused_and_the_server_recovers() -> R {
    let f = Fixture::new(GatewayConfig {
        limits: Limits {
            max_workers: 2,
            max_queued: 1,
            ..Limits::default()
        },
        ..GatewayConfig::default()
    })?;
    // Two connections hold both workers; one more waits in the queue; the rest are closed.
    let mut held: Vec<Client> = Vec::new();
    for _ in 0..2 {
        let mut c = f.client(false, false)?;
        c.get_thrift_server_type()?;
        held.push(c);
    }
    let waiting = TcpStream::connect(f.addr())?;
    std::thread::sleep(Duration::from_millis(100));
    let mut refused = TcpStream::connect(f.addr())?;
    refused.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut buf = [0u8; 1];
    assert_eq!(
        refused.read(&mut buf).unwrap_or(0),
        0,
        "a connection beyond the queue is closed"
    );
    drop(waiting);
    drop(held);
    std::thread::sleep(Duration::from_millis(100));
    let mut c = f.client(true, false)?;
    assert_eq!(c.get_thrift_server_type()?, TThriftServerType::ONE);
    Ok(())
}
