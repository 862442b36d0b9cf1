//! libFuzzer target `rest_request`: the REST gateway's request parser
//! (`regionkv_gateway::rest::http::parse_request`) on arbitrary bytes, then the URL grammar
//! (RowSpec, query strings) on the request target and the body decoders (CellSet, Scanner,
//! TableSchema in JSON and XML, the scanner's JSON FilterModel) on the body. Any `Err` is
//! fine; a panic, an abort, a hang or an unbounded allocation is a bug in the gateway. The
//! same checks run on stable as the gateway's unit test
//! `rest::http::tests::mutated_requests_never_panic`.
#![no_main]

use regionkv_gateway::rest::http::{HttpLimits, parse_request};
use regionkv_gateway::rest::{filter_model, model, url};

fn check(data: &[u8]) {
    for limits in [
        HttpLimits {
            max_head: 8 * 1024,
            max_body: 64 * 1024,
        },
        HttpLimits {
            max_head: 64,
            max_body: 16,
        },
    ] {
        let Ok(Some((req, used))) = parse_request(data, &limits) else {
            continue;
        };
        assert!(used <= data.len(), "consumed more than the input");
        assert!(req.body.len() <= limits.max_body, "body past the limit");
        let (path, query) = req
            .target
            .split_once('?')
            .unwrap_or((req.target.as_str(), ""));
        let _ = url::parse_query(query);
        let _ = url::RowSpec::parse(path.as_bytes());
        for f in [model::Format::Json, model::Format::Xml] {
            let _ = model::CellSet::decode(&req.body, f);
            let _ = model::ScannerModel::decode(&req.body, f);
            let _ = model::TableSchema::decode(&req.body, f);
        }
        let _ = filter_model::build_filter(&String::from_utf8_lossy(&req.body));
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));
