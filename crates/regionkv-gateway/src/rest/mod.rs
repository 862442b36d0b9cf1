//! HBase's REST gateway ("Stargate", `hbase rest`) over a regionkv [`Db`]: the resources of
//! HBase 2.x's `hbase-rest` module (RootResource, TableResource, RowResource,
//! ScannerResource, SchemaResource, NamespacesResource ...) with their URLs, status codes,
//! texts and JSON/XML bodies. docs/gateway-rest.md lists every endpoint and the differences.
//!
//! Layout: [`http`] frames HTTP/1.1 requests and responses, [`url`] holds the URL grammar
//! (RowSpec), [`model`] the bodies, [`filter_model`] the scanner's JSON filters; this file
//! routes requests and runs the resources. One [`RestService`] serves every connection of
//! the REST port; a connection carries requests one after another (keep-alive) until the
//! client closes it, asks to, goes idle past the timeout, or the gateway stops.
//!
//! Error rules (ResourceBase.processException): a missing table or family is 404 `Not
//! found`, an illegal argument 400 `Bad request`, any other failure 503 `Unavailable`; a
//! mutation in read-only mode is 403 `Forbidden`. A handler never answers 500 for bad
//! input; a panic (a bug) answers 500 and closes that connection only.

pub mod filter_model;
pub mod http;
pub mod model;
pub mod url;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use regionkv::filter::{Filter, FilterList, PrefixFilter};
use regionkv::{
    Append, Cell, CheckAndMutate, CheckAndMutateBuilder, ColumnFamilyDescriptor, Db, Delete, Get,
    Increment, Put, ResultScanner, RowResult, Scan, Table, TableDescriptor, TimeRange,
};

use crate::GatewayConfig;
use crate::common::{Column, ErrorKind, java_message};
use crate::scanners::ScannerRegistry;
use crate::server::{Connection, Service};
use http::{HttpLimits, Incoming, Request, Response};
use model::{BodyError, CellModel, CellSet, Format, RowModel};
use url::{Query, RowSpec, UrlError};

/// HBase's `RESTServlet.VERSION_STRING`.
const REST_VERSION: &str = "0.0.3";

/// The port HBase's region servers listen on (regions are served in-process here; region
/// locations name this host and HBase's default port, as the Thrift gateway does).
const REGION_SERVER_PORT: u16 = 16020;

/// A representation a resource can produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mime {
    Text,
    Xml,
    Json,
    Binary,
}

impl Mime {
    fn content_type(self) -> &'static str {
        match self {
            Mime::Text => "text/plain",
            Mime::Xml => "text/xml",
            Mime::Json => "application/json",
            Mime::Binary => "application/octet-stream",
        }
    }

    fn format(self) -> Format {
        if self == Mime::Json {
            Format::Json
        } else {
            Format::Xml
        }
    }
}

/// The `@Produces` lists of HBase's resources, first = the default for `*/*`.
const PRODUCES_TEXT_FIRST: &[Mime] = &[Mime::Text, Mime::Xml, Mime::Json];
const PRODUCES_CELLS: &[Mime] = &[Mime::Xml, Mime::Json];
const PRODUCES_CELLS_OR_RAW: &[Mime] = &[Mime::Xml, Mime::Json, Mime::Binary];

/// An open REST scanner: the scan and the cells of its current row not yet sent.
pub struct RestScanner {
    scanner: ResultScanner,
    pending: VecDeque<Cell>,
    batch: usize,
}

impl RestScanner {
    /// The next cell (HBase's `ScannerResultGenerator.next`).
    fn next_cell(&mut self) -> Result<Option<Cell>, regionkv::Error> {
        if let Some(c) = self.pending.pop_front() {
            return Ok(Some(c));
        }
        for r in self.scanner.by_ref() {
            let cells = r?.into_cells();
            self.pending.extend(cells);
            if let Some(c) = self.pending.pop_front() {
                return Ok(Some(c));
            }
        }
        Ok(None)
    }

    fn put_back(&mut self, c: Cell) {
        self.pending.push_front(c);
    }
}

/// The REST protocol over one Db.
pub struct RestService {
    db: Db,
    read_only: bool,
    limits: HttpLimits,
    scanners: ScannerRegistry<RestScanner>,
    host: String,
    start_code: i64,
    requests: AtomicU64,
}

impl RestService {
    /// A REST service over `db`.
    pub fn new(db: Db, config: &GatewayConfig) -> Self {
        let host = if config.bind.is_unspecified() || config.bind.is_loopback() {
            "localhost".to_string()
        } else {
            config.bind.to_string()
        };
        let start_code = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        RestService {
            db,
            read_only: config.read_only,
            limits: HttpLimits {
                max_head: config.limits.max_http_head,
                max_body: config.limits.max_http_body,
            },
            scanners: ScannerRegistry::new(config.limits.max_scanners, config.limits.scanner_lease),
            host,
            start_code,
            requests: AtomicU64::new(0),
        }
    }

    /// Open scanners (for tests and metrics).
    pub fn open_scanners(&self) -> usize {
        self.scanners.len()
    }

    /// Answers one request (the whole REST API; no socket involved).
    pub fn handle(&self, req: &Request, local: SocketAddr) -> Response {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let (path, query) = match req.target.split_once('?') {
            Some((p, q)) => (p, q),
            None => (req.target.as_str(), ""),
        };
        // An absolute-form target (`http://host/path`) addresses the same path.
        let path = match path.strip_prefix("http://") {
            Some(rest) => rest.find('/').and_then(|i| rest.get(i..)).unwrap_or("/"),
            None => path,
        };
        let query = match url::parse_query(query) {
            Ok(q) => Query(q),
            Err(e) => return bad_request(&e.0),
        };
        let ctx = Ctx {
            req,
            query,
            local,
            method: if req.method == "HEAD" {
                "GET"
            } else {
                req.method.as_str()
            },
        };
        self.route(&ctx, path)
    }

    fn route(&self, ctx: &Ctx<'_>, path: &str) -> Response {
        let trimmed = path.trim_start_matches('/');
        let (first, rest) = match trimmed.split_once('/') {
            Some((a, b)) => (a, Some(b)),
            None => (trimmed, None),
        };
        match (first, rest) {
            ("", None) => self.root(ctx),
            ("version", None | Some("" | "rest")) => self.version(ctx),
            ("version", Some("cluster")) => self.cluster_version(ctx),
            ("status", Some("cluster")) => self.cluster_status(ctx),
            ("version" | "status", _) => not_found(),
            ("namespaces", None | Some("")) => self.namespaces(ctx),
            ("namespaces", Some(ns)) => {
                let (ns, tail) = match ns.split_once('/') {
                    Some((a, b)) => (a, Some(b)),
                    None => (ns, None),
                };
                let name = match decode_name(ns) {
                    Ok(n) => n,
                    Err(r) => return *r,
                };
                match tail {
                    None | Some("") => self.namespace(ctx, &name),
                    Some("tables") => self.namespace_tables(ctx, &name),
                    Some(_) => not_found(),
                }
            }
            (table, rest) => {
                let name = match decode_name(table) {
                    Ok(n) => n,
                    Err(r) => return *r,
                };
                self.table_resource(ctx, table, &name, rest.unwrap_or(""))
            }
        }
    }

    fn table_resource(&self, ctx: &Ctx<'_>, raw_table: &str, table: &str, rest: &str) -> Response {
        match rest {
            "" => method_not_allowed(),
            "schema" => self.schema(ctx, table),
            "regions" => self.regions(ctx, table),
            "exists" => self.exists(ctx, table),
            "scanner" => self.create_scanner(ctx, raw_table, table),
            _ => {
                if let Some(id) = rest.strip_prefix("scanner/") {
                    return self.scanner_instance(ctx, id);
                }
                if rest.starts_with("multiget") {
                    return self.multiget(ctx, table, rest);
                }
                // TableResource's templates: `{suffixglobbingspec: .*\*/.+}` and
                // `{rowspec: [^*]+}` are rows, `{scanspec: .*[*]$}` a stateless scan.
                let glob_with_columns = rest.find("*/").is_some_and(|i| rest.len() > i + 2);
                if glob_with_columns || !rest.contains('*') {
                    self.row(ctx, table, rest)
                } else if rest.ends_with('*') {
                    self.table_scan(ctx, table, rest)
                } else {
                    not_found()
                }
            }
        }
    }

    fn table(&self, name: &str) -> Result<Table, Box<Response>> {
        self.db
            .table(name)
            .map_err(|e| Box::new(error_response(&e)))
    }

    fn forbid_if_read_only(&self) -> Option<Response> {
        self.read_only.then(|| Response::text(403, "Forbidden"))
    }

    // ------------------------------------------------------------------------------
    // RootResource, VersionResource, StorageCluster*Resource

    fn root(&self, ctx: &Ctx<'_>) -> Response {
        name_list(ctx, self.db.admin().list_tables(), model::table_list)
    }

    fn version_info() -> model::VersionInfo {
        model::VersionInfo {
            rest: REST_VERSION.to_string(),
            jvm: format!("none (regionkv {}, Rust)", env!("CARGO_PKG_VERSION")),
            os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
            server: format!("regionkv-gateway/{}", env!("CARGO_PKG_VERSION")),
            jersey: String::new(),
        }
    }

    fn version(&self, ctx: &Ctx<'_>) -> Response {
        if ctx.method != "GET" {
            return method_not_allowed();
        }
        let mime = match ctx.negotiate(PRODUCES_TEXT_FIRST) {
            Ok(m) => m,
            Err(r) => return *r,
        };
        let v = Self::version_info();
        match mime {
            Mime::Text => Response::new(200, mime.content_type(), v.to_text()),
            _ => Response::new(200, mime.content_type(), v.encode(mime.format())),
        }
    }

    fn cluster_version(&self, ctx: &Ctx<'_>) -> Response {
        if ctx.method != "GET" {
            return method_not_allowed();
        }
        let mime = match ctx.negotiate(PRODUCES_TEXT_FIRST) {
            Ok(m) => m,
            Err(r) => return *r,
        };
        let version = cluster_version_string();
        match mime {
            Mime::Text => Response::new(200, mime.content_type(), version),
            _ => Response::new(
                200,
                mime.content_type(),
                model::cluster_version(&version, mime.format()),
            ),
        }
    }

    fn cluster_status(&self, ctx: &Ctx<'_>) -> Response {
        if ctx.method != "GET" {
            return method_not_allowed();
        }
        let mime = match ctx.negotiate(PRODUCES_TEXT_FIRST) {
            Ok(m) => m,
            Err(r) => return *r,
        };
        let admin = self.db.admin();
        let mut regions = Vec::new();
        let tables = match admin.list_tables() {
            Ok(t) => t,
            Err(e) => return error_response(&e),
        };
        for t in tables {
            // A table dropped meanwhile is simply not listed.
            for r in admin.regions(&t).unwrap_or_default() {
                regions.push(model::RegionLoad {
                    name: r.name.into_bytes(),
                    stores: i64::try_from(r.stores.len()).unwrap_or(i64::MAX),
                    storefiles: i64::try_from(r.store_files).unwrap_or(i64::MAX),
                    storefile_size_mb: mb(r.store_file_bytes),
                    memstore_size_mb: mb(r.memstore_bytes),
                    read_requests: i64::try_from(r.read_requests).unwrap_or(i64::MAX),
                    write_requests: i64::try_from(r.write_requests).unwrap_or(i64::MAX),
                });
            }
        }
        let status = model::ClusterStatus {
            node: format!("{}:{REGION_SERVER_PORT}", self.host),
            start_code: self.start_code,
            requests: i64::try_from(self.requests.load(Ordering::Relaxed)).unwrap_or(i64::MAX),
            regions,
        };
        match mime {
            Mime::Text => Response::new(200, mime.content_type(), status.to_text()),
            _ => Response::new(200, mime.content_type(), status.encode(mime.format())),
        }
    }

    // ------------------------------------------------------------------------------
    // NamespacesResource, NamespacesInstanceResource

    fn namespaces(&self, ctx: &Ctx<'_>) -> Response {
        name_list(ctx, self.db.admin().list_namespaces(), model::namespaces)
    }

    fn namespace_exists(&self, ns: &str) -> Result<bool, Box<Response>> {
        self.db
            .admin()
            .list_namespaces()
            .map(|all| all.iter().any(|n| n == ns))
            .map_err(|e| Box::new(error_response(&e)))
    }

    fn namespace(&self, ctx: &Ctx<'_>, ns: &str) -> Response {
        match ctx.method {
            "GET" => {
                let mime = match ctx.negotiate(PRODUCES_TEXT_FIRST) {
                    Ok(m) => m,
                    Err(r) => return *r,
                };
                match self.namespace_exists(ns) {
                    Err(r) => *r,
                    // HBase lets the NamespaceNotFoundException escape as a server error;
                    // regionkv answers 404 (bad input is never a 500 here).
                    Ok(false) => Response::text(
                        404,
                        &format!("Not found\r\nNamespace '{ns}' does not exist."),
                    ),
                    Ok(true) => match mime {
                        Mime::Text => {
                            Response::new(200, mime.content_type(), format!("{{NAME => '{ns}'}}"))
                        }
                        _ => Response::new(
                            200,
                            mime.content_type(),
                            model::namespace_properties(&[], mime.format()),
                        ),
                    },
                }
            }
            "POST" | "PUT" => {
                let update = ctx.method == "PUT";
                if let Some(r) = self.forbid_if_read_only() {
                    return r;
                }
                let props = if ctx.req.body.iter().all(u8::is_ascii_whitespace) {
                    Vec::new()
                } else {
                    let format = match ctx.body_format() {
                        Ok(f) => f,
                        Err(r) => return *r,
                    };
                    match model::decode_namespace_properties(&ctx.req.body, format) {
                        Ok(p) => p,
                        Err(e) => return bad_request(&e.0),
                    }
                };
                if !props.is_empty() {
                    return bad_request("namespace properties are not supported by regionkv");
                }
                let exists = match self.namespace_exists(ns) {
                    Ok(b) => b,
                    Err(r) => return *r,
                };
                // NamespacesInstanceResource.processUpdate: POST creates, PUT alters.
                if !update && exists {
                    return Response::new(
                        403,
                        "text/plain",
                        format!(
                            "Namespace '{ns}' already exists.  Use REST PUT to alter the existing namespace."
                        ),
                    );
                }
                if update && !exists {
                    return Response::new(
                        403,
                        "text/plain",
                        format!(
                            "Namespace '{ns}' does not exist. Use REST POST to create the namespace."
                        ),
                    );
                }
                if update {
                    // Nothing to alter: regionkv namespaces carry no properties.
                    return Response::empty(200);
                }
                match self.db.admin().create_namespace(ns) {
                    Ok(()) => Response::empty(201).with_header(
                        "Location",
                        ctx.absolute(&format!("/namespaces/{}", encode_path(ns))),
                    ),
                    Err(e) => error_response(&e),
                }
            }
            "DELETE" => {
                if let Some(r) = self.forbid_if_read_only() {
                    return r;
                }
                match self.namespace_exists(ns) {
                    Err(r) => *r,
                    Ok(false) => Response::new(
                        404,
                        "text/plain",
                        format!("Namespace '{ns}' does not exists.  Cannot drop namespace."),
                    ),
                    Ok(true) => match self.db.admin().drop_namespace(ns) {
                        Ok(()) => Response::empty(200),
                        Err(e) => error_response(&e),
                    },
                }
            }
            _ => method_not_allowed(),
        }
    }

    fn namespace_tables(&self, ctx: &Ctx<'_>, ns: &str) -> Response {
        if ctx.method != "GET" {
            return method_not_allowed();
        }
        let mime = match ctx.negotiate(PRODUCES_TEXT_FIRST) {
            Ok(m) => m,
            Err(r) => return *r,
        };
        match self.db.admin().list_namespace_tables(ns) {
            Ok(names) => {
                // TableModel of getQualifierAsString: the name without its namespace.
                let names: Vec<String> = names
                    .into_iter()
                    .map(|n| match n.split_once(':') {
                        Some((_, q)) => q.to_string(),
                        None => n,
                    })
                    .collect();
                match mime {
                    Mime::Text => Response::new(200, mime.content_type(), lines(&names)),
                    _ => Response::new(
                        200,
                        mime.content_type(),
                        model::table_list(&names, mime.format()),
                    ),
                }
            }
            Err(e) => error_response(&e),
        }
    }

    // ------------------------------------------------------------------------------
    // SchemaResource, RegionsResource, ExistsResource

    fn schema(&self, ctx: &Ctx<'_>, table: &str) -> Response {
        match ctx.method {
            "GET" => {
                let mime = match ctx.negotiate(PRODUCES_TEXT_FIRST) {
                    Ok(m) => m,
                    Err(r) => return *r,
                };
                match self.db.admin().describe(table) {
                    Ok(desc) => {
                        let schema = schema_of(&desc);
                        let body = match mime {
                            Mime::Text => schema.to_text().into_bytes(),
                            _ => schema.encode(mime.format()),
                        };
                        Response::new(200, mime.content_type(), body)
                            .with_header("Cache-Control", "no-cache")
                    }
                    Err(e) => error_response(&e),
                }
            }
            "PUT" | "POST" => {
                if let Some(r) = self.forbid_if_read_only() {
                    return r;
                }
                let format = match ctx.body_format() {
                    Ok(f) => f,
                    Err(r) => return *r,
                };
                let model = match model::TableSchema::decode(&ctx.req.body, format) {
                    Ok(m) => m,
                    Err(e) => return bad_request(&e.0),
                };
                self.update_schema(ctx, table, &model, ctx.method == "PUT")
            }
            "DELETE" => {
                if let Some(r) = self.forbid_if_read_only() {
                    return r;
                }
                let admin = self.db.admin();
                // SchemaResource.delete: disable (already disabled is fine), then delete.
                match admin.disable_table(table) {
                    Ok(()) | Err(regionkv::Error::TableNotEnabled(_)) => {}
                    Err(e) => return error_response(&e),
                }
                match admin.delete_table(table) {
                    Ok(()) => Response::empty(200),
                    Err(e) => error_response(&e),
                }
            }
            _ => method_not_allowed(),
        }
    }

    /// SchemaResource.update: PUT (or POST of a missing table) replaces or creates the
    /// table (201 Created); POST of an existing table adds or modifies the given families
    /// (200).
    fn update_schema(
        &self,
        ctx: &Ctx<'_>,
        table: &str,
        model: &model::TableSchema,
        replace: bool,
    ) -> Response {
        let admin = self.db.admin();
        let exists = match admin.table_exists(table) {
            Ok(b) => b,
            Err(e) => return error_response(&e),
        };
        let families = match model
            .columns
            .iter()
            .map(family_of)
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(f) => f,
            Err(e) => return error_response(&e),
        };
        if replace || !exists {
            let mut desc = match TableDescriptor::new(table, families) {
                Ok(d) => d,
                Err(e) => return error_response(&regionkv::Error::from(e)),
            };
            for (k, v) in &model.attrs {
                // Descriptive attributes HBase writes but that describe no option.
                if matches!(k.as_str(), "IS_META" | "IS_ROOT" | "NAME") {
                    continue;
                }
                // Any other key is a table value, kept as given (HBase's REST calls
                // `setValue` for every attribute): METADATA, `coprocessor$N` specs.
                match desc.set_attribute(k, v) {
                    Ok(()) => {}
                    Err(regionkv::DescriptorError::UnknownAttribute { .. }) => {
                        desc.metadata.insert(k.clone(), v.clone());
                    }
                    Err(e) => return error_response(&regionkv::Error::from(e)),
                }
            }
            let result = if exists {
                admin.modify_table(&desc)
            } else {
                admin.create_table(&desc)
            };
            return match result {
                Ok(()) => Response::empty(201).with_header(
                    "Location",
                    ctx.absolute(&format!("/{}/schema", encode_path(table))),
                ),
                // A race: someone created it meanwhile.
                Err(regionkv::Error::TableExists(_)) => Response::text(304, "Not modified"),
                Err(e) => error_response(&e),
            };
        }
        let current = match admin.describe(table) {
            Ok(d) => d,
            Err(e) => return error_response(&e),
        };
        for f in families {
            let result = if current.families.iter().any(|c| c.name == f.name) {
                admin.modify_family(table, f)
            } else {
                admin.add_family(table, f)
            };
            if let Err(e) = result {
                return error_response(&e);
            }
        }
        Response::empty(200)
    }

    fn regions(&self, ctx: &Ctx<'_>, table: &str) -> Response {
        if ctx.method != "GET" {
            return method_not_allowed();
        }
        let mime = match ctx.negotiate(PRODUCES_TEXT_FIRST) {
            Ok(m) => m,
            Err(r) => return *r,
        };
        match self.db.admin().regions(table) {
            Ok(regions) => {
                let location = format!("{}:{REGION_SERVER_PORT}", self.host);
                let models: Vec<model::RegionModel> = regions
                    .into_iter()
                    .map(|r| model::RegionModel {
                        name: r.name,
                        id: i64::try_from(r.region_id).unwrap_or(i64::MAX),
                        start_key: r.start_key,
                        end_key: r.end_key,
                        location: location.clone(),
                    })
                    .collect();
                match mime {
                    Mime::Text => {
                        let mut s = String::new();
                        for r in &models {
                            s.push_str(&format!(
                                "{} [\n  id={}\n  startKey='{}'\n  endKey='{}'\n  location='{}'\n]\n",
                                r.name,
                                r.id,
                                String::from_utf8_lossy(&r.start_key),
                                String::from_utf8_lossy(&r.end_key),
                                r.location
                            ));
                        }
                        Response::new(200, mime.content_type(), s)
                    }
                    _ => Response::new(
                        200,
                        mime.content_type(),
                        model::table_info(table, &models, mime.format()),
                    ),
                }
            }
            Err(e) => error_response(&e),
        }
    }

    fn exists(&self, ctx: &Ctx<'_>, table: &str) -> Response {
        if ctx.method != "GET" {
            return method_not_allowed();
        }
        match self.db.admin().table_exists(table) {
            Ok(true) => Response::empty(200).with_header("Cache-Control", "no-cache"),
            Ok(false) => not_found(),
            Err(_) => Response::text(503, "Unavailable"),
        }
    }

    // ------------------------------------------------------------------------------
    // RowResource

    fn row(&self, ctx: &Ctx<'_>, table: &str, rowspec: &str) -> Response {
        let mut spec = match RowSpec::parse(rowspec.as_bytes()) {
            Ok(s) => s,
            Err(e) => return bad_request(&e.0),
        };
        if let Some(v) = ctx.query.text("v") {
            match parse_versions(&v) {
                Ok(n) => spec.max_versions = n,
                Err(r) => return *r,
            }
        }
        match ctx.method {
            "GET" => self.get_row(ctx, table, &spec),
            "PUT" | "POST" => {
                if let Some(r) = self.forbid_if_read_only() {
                    return r;
                }
                if ctx.content_type() == Some(BodyType::Binary) {
                    return self.put_binary(ctx, table, &spec);
                }
                let format = match ctx.body_format() {
                    Ok(f) => f,
                    Err(r) => return *r,
                };
                let cells = match CellSet::decode(&ctx.req.body, format) {
                    Ok(c) => c,
                    Err(e) => return bad_request(&e.0),
                };
                let check = ctx.query.text("check").unwrap_or_default();
                let return_results = ctx
                    .query
                    .text("returnResult")
                    .is_some_and(|v| v.eq_ignore_ascii_case("true"));
                match check.to_ascii_lowercase().as_str() {
                    "" => self.put_cells(table, &spec, &cells),
                    "put" => self.check_and_put(table, &spec, &cells),
                    "delete" => self.check_and_delete(table, &spec, &cells),
                    "append" => self.append(ctx, table, &spec, &cells, return_results),
                    "increment" => self.increment(ctx, table, &spec, &cells, return_results),
                    _ => Response::text(400, &format!("Invalid check value '{check}'")),
                }
            }
            "DELETE" => {
                if let Some(r) = self.forbid_if_read_only() {
                    return r;
                }
                self.delete_row(table, &spec)
            }
            _ => method_not_allowed(),
        }
    }

    /// ResultGenerator.fromRowSpec: a Get for one row, a scan for a range or a prefix. A
    /// Get that fails as HBase's DoNotRetryIOException (missing table or family, disabled
    /// table) yields no cells (RowResultGenerator swallows it, so the answer is 404).
    fn cells_of_spec(&self, table: &str, spec: &RowSpec) -> Result<Vec<Cell>, Box<Response>> {
        let range = time_range(spec.start_time, spec.end_time)?;
        let t = match self.db.table(table) {
            Ok(t) => t,
            Err(e) => return Err(Box::new(error_response(&e))),
        };
        match &spec.end_row {
            None => {
                let mut get = Get::new(&spec.row)
                    .time_range(range)
                    .max_versions(spec.max_versions);
                for c in &spec.columns {
                    get = match Column::parse(c) {
                        Column::Family(f) => get.add_family(f),
                        Column::Qualified(f, q) => get.add_column(f, q),
                    };
                }
                match t.get(&get) {
                    Ok(r) => Ok(r.into_cells()),
                    Err(e) if swallowed_by_row_generator(&e) => Ok(Vec::new()),
                    Err(e) => Err(Box::new(error_response(&e))),
                }
            }
            Some(end) => {
                let mut scan = Scan::new()
                    .start_row(&spec.row)
                    .stop_row(end)
                    .time_range(range)
                    .max_versions(spec.max_versions);
                for c in &spec.columns {
                    scan = match Column::parse(c) {
                        Column::Family(f) => scan.add_family(f),
                        Column::Qualified(f, q) => scan.add_column(f, q),
                    };
                }
                let scanner = t.scan(&scan).map_err(|e| Box::new(error_response(&e)))?;
                let mut cells = Vec::new();
                for r in scanner {
                    cells.extend(r.map_err(|e| Box::new(error_response(&e)))?.into_cells());
                }
                Ok(cells)
            }
        }
    }

    fn get_row(&self, ctx: &Ctx<'_>, table: &str, spec: &RowSpec) -> Response {
        let mime = match ctx.negotiate(PRODUCES_CELLS_OR_RAW) {
            Ok(m) => m,
            Err(r) => return *r,
        };
        if mime == Mime::Binary && spec.columns.len() != 1 {
            return Response::text(
                400,
                "Bad request: Default 'GET' method only works if there is exactly 1 column in the row. \
                 Using the 'Accept' header with one of these formats lets you retrieve the entire row \
                 if it has multiple columns: text/xml, application/json, application/x-protobuf, \
                 application/protobuf",
            );
        }
        let cells = match self.cells_of_spec(table, spec) {
            Ok(c) => c,
            Err(r) => return *r,
        };
        let Some(first) = cells.first() else {
            return not_found();
        };
        if mime == Mime::Binary {
            return Response::new(200, mime.content_type(), first.value().to_vec())
                .with_header("X-Timestamp", first.timestamp().to_string());
        }
        let set = cell_set(&cells);
        Response::new(200, mime.content_type(), set.encode(mime.format()))
    }

    /// RowResource.update: every row of the body becomes a Put (a row without a key takes
    /// the URL's row, a cell without a column the URL's columns in order).
    fn put_cells(&self, table: &str, spec: &RowSpec, set: &CellSet) -> Response {
        let url_columns: Vec<&Vec<u8>> = spec.columns.iter().collect();
        let mut puts = Vec::with_capacity(set.rows.len());
        for row in &set.rows {
            let key = row.key.clone().unwrap_or_else(|| spec.row.clone());
            let mut put = Put::new(&key);
            let mut i = 0;
            for cell in &row.cells {
                let column = match &cell.column {
                    Some(c) => c.clone(),
                    None => {
                        let c = url_columns.get(i).map(|c| (*c).clone());
                        i += 1;
                        match c {
                            Some(c) => c,
                            None => {
                                return Response::text(
                                    400,
                                    "Bad request: Column found to be null.",
                                );
                            }
                        }
                    }
                };
                let Column::Qualified(f, q) = Column::parse(&column) else {
                    return Response::text(400, "Bad request");
                };
                put = add_to_put(put, &f, &q, cell.timestamp, &cell.value);
            }
            puts.push(put);
        }
        let t = match self.table(table) {
            Ok(t) => t,
            Err(r) => return *r,
        };
        if puts.is_empty() {
            return Response::empty(200);
        }
        match t.put_all(&puts) {
            Ok(()) => Response::empty(200),
            Err(e) => error_response(&e),
        }
    }

    /// RowResource.updateBinary: the body is one cell's value; row, column and timestamp
    /// come from the URL or the X-Row / X-Column / X-Timestamp headers (headers win).
    fn put_binary(&self, ctx: &Ctx<'_>, table: &str, spec: &RowSpec) -> Response {
        let row = match ctx.req.header("X-Row") {
            Some(r) => r.into_bytes(),
            None => spec.row.clone(),
        };
        let column = match ctx.req.header("X-Column") {
            Some(c) => Some(c.into_bytes()),
            None => spec.columns.iter().next().cloned(),
        };
        let timestamp = match ctx.req.header("X-Timestamp") {
            Some(t) => match t.parse::<i64>() {
                Ok(t) => Some(t),
                Err(_) => {
                    return bad_request(&format!(
                        "java.lang.NumberFormatException: For input string: \"{t}\""
                    ));
                }
            },
            None => None,
        };
        let Some(column) = column else {
            return Response::text(400, "Bad request: Column found to be null.");
        };
        let Column::Qualified(f, q) = Column::parse(&column) else {
            return Response::text(400, "Bad request");
        };
        let put = add_to_put(Put::new(&row), &f, &q, timestamp, &ctx.req.body);
        let t = match self.table(table) {
            Ok(t) => t,
            Err(r) => return *r,
        };
        match t.put(&put) {
            Ok(()) => Response::empty(200),
            Err(e) => error_response(&e),
        }
    }

    /// RowResource.checkAndPut: the last cell is the check (`column == value`), the others
    /// the Put, which must include the checked column.
    fn check_and_put(&self, table: &str, spec: &RowSpec, set: &CellSet) -> Response {
        let [row] = set.rows.as_slice() else {
            return Response::text(400, "Bad request: Number of rows specified is not 1.");
        };
        let key = row.key.clone().unwrap_or_else(|| spec.row.clone());
        let Some((check, cells)) = row.cells.split_last().filter(|(_, rest)| !rest.is_empty())
        else {
            return Response::text(
                400,
                "Bad request: Either row key is null or no data found for columns specified.",
            );
        };
        let check_column = check.column.clone().unwrap_or_default();
        let (cf, cq) = match Column::parse(&check_column) {
            Column::Qualified(f, q) if !q.is_empty() => (f, q),
            _ => return Response::text(400, "Bad request: Column incorrectly specified."),
        };
        let mut put = Put::new(&key);
        let mut matched = false;
        for cell in cells {
            let Some(col) = &cell.column else {
                return Response::text(400, "Bad request: Column found to be null.");
            };
            let Column::Qualified(f, q) = Column::parse(col) else {
                return Response::text(400, "Bad request");
            };
            put = add_to_put(put, &f, &q, cell.timestamp, &cell.value);
            matched |= *col == check_column;
        }
        if !matched {
            return Response::text(
                400,
                "Bad request: The column to put and check do not match.",
            );
        }
        self.check_and(table, &key, &cf, &cq, &check.value, |b| b.then_put(put))
    }

    /// RowResource.checkAndDelete: the last cell is the check (its column may come from the
    /// URL); the other cells name what to delete (a family, or one version of a column at
    /// the cell's timestamp); with the check cell alone, every version of the checked
    /// column is deleted.
    fn check_and_delete(&self, table: &str, spec: &RowSpec, set: &CellSet) -> Response {
        let [row] = set.rows.as_slice() else {
            return Response::text(400, "Bad request: Number of rows specified is not 1.");
        };
        let key = row.key.clone().unwrap_or_else(|| spec.row.clone());
        let Some((check, others)) = row.cells.split_last() else {
            return Response::text(400, "Bad request: Column not specified for check.");
        };
        let check_column = match check
            .column
            .clone()
            .or_else(|| spec.columns.iter().next().cloned())
        {
            Some(c) => c,
            None => return Response::text(400, "Bad request: Column not specified for check."),
        };
        let mut delete = Delete::new(&key);
        for cell in others {
            let Some(col) = &cell.column else {
                return Response::text(400, "Bad request: Column found to be null.");
            };
            delete = match (Column::parse(col), cell.timestamp) {
                (Column::Family(f), None) => delete.add_family(f),
                (Column::Family(f), Some(ts)) => delete.add_family_at(f, ts),
                (Column::Qualified(f, q), None) => delete.add_column(f, q),
                (Column::Qualified(f, q), Some(ts)) => delete.add_column_at(f, q, ts),
            };
        }
        let Column::Qualified(cf, cq) = Column::parse(&check_column) else {
            return Response::text(400, "Bad request: Column to check incorrectly specified.");
        };
        if others.is_empty() {
            delete = delete.add_columns(&cf, &cq);
        }
        self.check_and(table, &key, &cf, &cq, &check.value, |b| {
            b.then_delete(delete)
        })
    }

    /// The check of checkAndPut and checkAndDelete: an empty expected value means "the
    /// column is absent", another one equality; 200 when the check held and the action ran,
    /// 304 when it did not (HBase sends "Value not Modified" with it; a 304 has no body).
    fn check_and(
        &self,
        table: &str,
        key: &[u8],
        family: &[u8],
        qualifier: &[u8],
        expected: &[u8],
        then: impl FnOnce(CheckAndMutateBuilder) -> CheckAndMutate,
    ) -> Response {
        let t = match self.table(table) {
            Ok(t) => t,
            Err(r) => return *r,
        };
        let builder = if expected.is_empty() {
            CheckAndMutate::builder(key).if_not_exists(family, qualifier)
        } else {
            CheckAndMutate::builder(key).if_equals(family, qualifier, expected)
        };
        match t.check_and_mutate(&then(builder)) {
            Ok(r) if r.success => Response::empty(200),
            Ok(_) => Response::empty(304),
            Err(e) => error_response(&e),
        }
    }

    /// The columns of a one-row append or increment body (a cell without a column takes
    /// the URL's columns in order).
    fn one_row_columns<'a>(
        spec: &RowSpec,
        set: &'a CellSet,
    ) -> Result<(Vec<u8>, Vec<ColumnCell<'a>>), Box<Response>> {
        let [row] = set.rows.as_slice() else {
            return Err(Box::new(Response::text(
                400,
                "Bad request: Number of rows specified is not 1.",
            )));
        };
        let key = row.key.clone().unwrap_or_else(|| spec.row.clone());
        let url_columns: Vec<&Vec<u8>> = spec.columns.iter().collect();
        let mut i = 0;
        let mut out = Vec::new();
        for cell in &row.cells {
            let column = match &cell.column {
                Some(c) => c.clone(),
                None => {
                    let c = url_columns.get(i).map(|c| (*c).clone());
                    i += 1;
                    c.ok_or_else(|| {
                        Box::new(Response::text(400, "Bad request: Column found to be null."))
                    })?
                }
            };
            let Column::Qualified(f, q) = Column::parse(&column) else {
                return Err(Box::new(Response::text(
                    400,
                    "Bad request: Column incorrectly specified.",
                )));
            };
            out.push((f, q, cell));
        }
        Ok((key, out))
    }

    fn append(
        &self,
        ctx: &Ctx<'_>,
        table: &str,
        spec: &RowSpec,
        set: &CellSet,
        return_results: bool,
    ) -> Response {
        let (key, columns) = match Self::one_row_columns(spec, set) {
            Ok(x) => x,
            Err(r) => return *r,
        };
        let mut a = Append::new(&key).return_results(return_results);
        for (f, q, cell) in columns {
            a = a.add_column(f, q, &cell.value);
        }
        let t = match self.table(table) {
            Ok(t) => t,
            Err(r) => return *r,
        };
        match t.append(&a) {
            Ok(r) => mutation_result(ctx, return_results, &r),
            Err(e) => error_response(&e),
        }
    }

    fn increment(
        &self,
        ctx: &Ctx<'_>,
        table: &str,
        spec: &RowSpec,
        set: &CellSet,
        return_results: bool,
    ) -> Response {
        let (key, columns) = match Self::one_row_columns(spec, set) {
            Ok(x) => x,
            Err(r) => return *r,
        };
        let mut inc = Increment::new(&key).return_results(return_results);
        for (f, q, cell) in columns {
            // HBase: Long.parseLong of the value's text.
            let text = String::from_utf8_lossy(&cell.value).into_owned();
            let Ok(amount) = text.parse::<i64>() else {
                return bad_request(&format!(
                    "java.lang.NumberFormatException: For input string: \"{text}\""
                ));
            };
            inc = inc.add_column(f, q, amount);
        }
        let t = match self.table(table) {
            Ok(t) => t,
            Err(r) => return *r,
        };
        match t.increment(&inc) {
            Ok(r) => mutation_result(ctx, return_results, &r),
            Err(e) => error_response(&e),
        }
    }

    /// RowResource.delete: the row, its families or columns (every version, up to the
    /// URL's timestamp when given).
    fn delete_row(&self, table: &str, spec: &RowSpec) -> Response {
        let ts = spec.has_timestamp().then_some(spec.end_time);
        let mut d = match ts {
            Some(ts) => Delete::with_timestamp(&spec.row, ts),
            None => Delete::new(&spec.row),
        };
        for c in &spec.columns {
            d = match (Column::parse(c), ts) {
                (Column::Family(f), None) => d.add_family(f),
                (Column::Family(f), Some(ts)) => d.add_family_at(f, ts),
                (Column::Qualified(f, q), None) => d.add_columns(f, q),
                (Column::Qualified(f, q), Some(ts)) => d.add_columns_at(f, q, ts),
            };
        }
        let t = match self.table(table) {
            Ok(t) => t,
            Err(r) => return *r,
        };
        match t.delete(&d) {
            Ok(()) => Response::empty(200),
            Err(e) => error_response(&e),
        }
    }

    // ------------------------------------------------------------------------------
    // MultiRowResource

    fn multiget(&self, ctx: &Ctx<'_>, table: &str, rest: &str) -> Response {
        if ctx.method != "GET" {
            return method_not_allowed();
        }
        let mime = match ctx.negotiate(PRODUCES_CELLS) {
            Ok(m) => m,
            Err(r) => return *r,
        };
        // `/{table}/multiget[/cf:a,cf:b]`: the path after "multiget" (slashes removed) is a
        // comma-separated column list.
        let columns: Vec<Vec<u8>> = {
            let tail: String = rest
                .trim_start_matches("multiget")
                .chars()
                .filter(|c| *c != '/')
                .collect();
            if tail.is_empty() {
                Vec::new()
            } else {
                match tail
                    .split(',')
                    .map(|c| url::path_decode(c.as_bytes()))
                    .collect::<Result<Vec<_>, UrlError>>()
                {
                    Ok(c) => c,
                    Err(e) => return bad_request(&e.0),
                }
            }
        };
        let versions = match ctx.query.text("v").map(|v| parse_versions(&v)).transpose() {
            Ok(v) => v,
            Err(r) => return *r,
        };
        let rows = ctx.query.all("row");
        if rows.is_empty() {
            return bad_request("no row given (use ?row=...)");
        }
        let mut set = CellSet::default();
        for rk in rows {
            let mut spec = match RowSpec::parse(rk) {
                Ok(s) => s,
                Err(e) => return bad_request(&e.0),
            };
            if let Some(v) = versions {
                spec.max_versions = v;
            }
            spec.columns.extend(columns.iter().cloned());
            let cells = match self.cells_of_spec(table, &spec) {
                Ok(c) => c,
                Err(r) => return *r,
            };
            if cells.is_empty() {
                continue;
            }
            // MultiRowResource files every cell of one row spec under the spec's row key.
            set.rows.push(RowModel {
                key: Some(spec.row.clone()),
                cells: cells.iter().map(cell_model).collect(),
            });
        }
        if set.rows.is_empty() {
            return Response::text(404, "No rows found.");
        }
        Response::new(200, mime.content_type(), set.encode(mime.format()))
    }

    // ------------------------------------------------------------------------------
    // TableScanResource

    fn table_scan(&self, ctx: &Ctx<'_>, table: &str, scanspec: &str) -> Response {
        if ctx.method != "GET" {
            return method_not_allowed();
        }
        let mime = match ctx.negotiate(PRODUCES_CELLS) {
            Ok(m) => m,
            Err(r) => return *r,
        };
        let spec = match url::path_decode(scanspec.as_bytes()) {
            Ok(s) => s,
            Err(e) => return bad_request(&e.0),
        };
        let q = &ctx.query;
        let int = |name: &str, default: i64| -> Result<i64, Box<Response>> {
            match q.text(name) {
                None => Ok(default),
                Some(t) => t.trim().parse().map_err(|_| {
                    Box::new(bad_request(&format!(
                        "query parameter {name} is not a number: '{t}'"
                    )))
                }),
            }
        };
        let params = (|| -> Result<_, Box<Response>> {
            Ok((
                int("limit", i64::from(i32::MAX))?,
                int("maxversions", 1)?,
                int("batchsize", -1)?,
                int("starttime", 0)?,
                int("endtime", i64::MAX)?,
            ))
        })();
        let (limit, max_versions, batch, start_time, end_time) = match params {
            Ok(p) => p,
            Err(r) => return *r,
        };
        let start_row = q.get("startrow").unwrap_or_default().to_vec();
        let end_row = q.get("endrow").unwrap_or_default().to_vec();
        let reversed = q.text("reversed").is_some_and(|r| r.trim() == "true");
        // `cacheblocks` (default true, Jersey's `Boolean.valueOf`): TableResource passes it
        // to `Scan#setCacheBlocks`.
        let cache_blocks = q
            .text("cacheblocks")
            .is_none_or(|v| v.trim().eq_ignore_ascii_case("true"));
        let mut scan = Scan::new().cache_blocks(cache_blocks);
        // TableResource.getScanResource: the text before the first `*` is a row prefix
        // (a PrefixFilter, and the start row unless `startrow` is given).
        let prefix: Option<Vec<u8>> = match spec.iter().position(|&b| b == b'*') {
            Some(i) if i > 0 => spec.get(..i).map(<[u8]>::to_vec),
            _ => None,
        };
        if let Some(p) = &prefix
            && start_row.is_empty()
        {
            scan = scan.start_row(p);
        }
        if batch > 0 {
            scan = scan.batch(usize::try_from(batch).unwrap_or(usize::MAX));
        }
        let Ok(max_versions) = u32::try_from(max_versions).map(|v| v.max(1)) else {
            return bad_request("maxversions must be positive");
        };
        scan = scan.max_versions(max_versions);
        match time_range(start_time, end_time) {
            Ok(r) => scan = scan.time_range(r),
            Err(r) => return *r,
        }
        if !start_row.is_empty() {
            scan = scan.start_row(&start_row);
        }
        if !end_row.is_empty() {
            scan = scan.stop_row(&end_row);
        }
        for c in q.all("column") {
            // `String.split(":")` as HBase does: "cf" and "cf:" name the family, "cf:q" a
            // column; anything with more colons is ignored.
            let text = String::from_utf8_lossy(c).trim().to_string();
            let parts: Vec<&str> = text.split(':').collect();
            let parts: Vec<&str> = match parts.iter().rposition(|p| !p.is_empty()) {
                Some(last) => parts.get(..=last).map(<[&str]>::to_vec).unwrap_or_default(),
                None => Vec::new(),
            };
            match parts.as_slice() {
                [f] => scan = scan.add_family(f),
                [f, q] => scan = scan.add_column(f, q),
                _ => {}
            }
        }
        let mut filters: Vec<Box<dyn Filter>> = Vec::new();
        if let Some(text) = q.text("filter").filter(|f| !f.is_empty()) {
            match regionkv::filter::parse_filter(&text) {
                Ok(f) => filters.push(f),
                Err(e) => return bad_request(&format!("java.lang.IllegalArgumentException: {e}")),
            }
        }
        if let Some(p) = prefix {
            filters.push(Box::new(PrefixFilter::new(p)));
        }
        if filters.len() == 1 {
            if let Some(f) = filters.pop() {
                scan = scan.filter(f);
            }
        } else if !filters.is_empty() {
            scan = scan.filter(Box::new(FilterList::and(filters)));
        }
        scan = scan.reversed(reversed);
        let t = match self.table(table) {
            Ok(t) => t,
            Err(r) => return *r,
        };
        let scanner = match t.scan(&scan) {
            Ok(s) => s,
            Err(e) => return error_response(&e),
        };
        let mut set = CellSet::default();
        let limit = usize::try_from(limit).unwrap_or(0);
        for r in scanner.take(limit) {
            match r {
                Ok(r) if r.is_empty() => {}
                Ok(r) => set.rows.push(row_model(&r)),
                Err(e) => return error_response(&e),
            }
        }
        Response::new(200, mime.content_type(), set.encode(mime.format()))
    }

    // ------------------------------------------------------------------------------
    // ScannerResource, ScannerInstanceResource

    fn create_scanner(&self, ctx: &Ctx<'_>, raw_table: &str, table: &str) -> Response {
        if !matches!(ctx.method, "PUT" | "POST") {
            return method_not_allowed();
        }
        if let Some(r) = self.forbid_if_read_only() {
            return r;
        }
        let format =
            if ctx.req.body.iter().all(u8::is_ascii_whitespace) && ctx.content_type().is_none() {
                Format::Xml
            } else {
                match ctx.body_format() {
                    Ok(f) => f,
                    Err(r) => return *r,
                }
            };
        let m = match model::ScannerModel::decode(&ctx.req.body, format) {
            Ok(m) => m,
            Err(e) => return bad_request(&e.0),
        };
        if !m.labels.is_empty() {
            return bad_request("visibility labels are not supported by regionkv");
        }
        let mut scan = Scan::new()
            .start_row(&m.start_row)
            .cache_blocks(m.cache_blocks);
        if !m.end_row.is_empty() {
            scan = scan.stop_row(&m.end_row);
        }
        for c in &m.columns {
            scan = match Column::parse(c) {
                Column::Family(f) => scan.add_family(f),
                Column::Qualified(f, q) => scan.add_column(f, q),
            };
        }
        match time_range(m.start_time, m.end_time) {
            Ok(r) => scan = scan.time_range(r),
            Err(r) => return *r,
        }
        let Some(versions) = u32::try_from(m.max_versions).ok().filter(|v| *v > 0) else {
            return bad_request("maxVersions must be positive");
        };
        scan = scan.max_versions(versions);
        if let Some(filter) = m.filter.as_deref().filter(|f| !f.is_empty()) {
            match filter_model::build_filter(filter) {
                Ok(f) => scan = scan.filter(f),
                Err(e) => return bad_request(&e.0),
            }
        }
        if m.caching > 0 {
            scan = scan.caching(usize::try_from(m.caching).unwrap_or(usize::MAX));
        }
        if m.limit > 0 {
            scan = scan.limit(u64::try_from(m.limit).unwrap_or(u64::MAX));
        }
        let t = match self.db.table(table) {
            Ok(t) => t,
            Err(e) => return scanner_error(&e),
        };
        let scanner = match t.scan(&scan) {
            Ok(s) => s,
            Err(e) => return scanner_error(&e),
        };
        let batch = usize::try_from(m.batch).unwrap_or(0).max(1);
        match self.scanners.insert(RestScanner {
            scanner,
            pending: VecDeque::new(),
            batch,
        }) {
            Ok(id) => Response::empty(201).with_header(
                "Location",
                ctx.absolute(&format!("/{raw_table}/scanner/{id}")),
            ),
            Err(e) => Response::text(503, &format!("Unavailable\r\njava.io.IOException: {e}")),
        }
    }

    fn scanner_instance(&self, ctx: &Ctx<'_>, id: &str) -> Response {
        let id = id.trim_end_matches('/').parse::<u64>().ok();
        match ctx.method {
            "GET" => {
                let mime = match ctx.negotiate(PRODUCES_CELLS_OR_RAW) {
                    Ok(m) => m,
                    Err(r) => return *r,
                };
                let Some(entry) = id.and_then(|id| self.scanners.get(id)) else {
                    return not_found();
                };
                let mut s = entry.lock();
                if mime == Mime::Binary {
                    return match s.next_cell() {
                        Ok(None) => Response::empty(204),
                        Ok(Some(c)) => Response::new(200, mime.content_type(), c.value().to_vec())
                            .with_header("Cache-Control", "no-cache")
                            .with_header("X-Row", model::b64(c.row()))
                            .with_header(
                                "X-Column",
                                model::b64(&crate::common::column_name(c.family(), c.qualifier())),
                            )
                            .with_header("X-Timestamp", c.timestamp().to_string()),
                        Err(e) => self.scanner_failed(id, &e),
                    };
                }
                let n = match query_int(&ctx.query, "n") {
                    Ok(n) => n,
                    Err(r) => return *r,
                };
                let c = match query_int(&ctx.query, "c") {
                    Ok(c) => c,
                    Err(r) => return *r,
                };
                let limit = if c > 0 {
                    usize::try_from(c).unwrap_or(usize::MAX)
                } else {
                    s.batch
                };
                let mut max_rows = n;
                let mut set = CellSet::default();
                let mut current: Option<RowModel> = None;
                let mut count = 0usize;
                // ScannerInstanceResource.get: up to `limit` cells, whole rows grouped,
                // stopping before row `n + 1` when `n` is given; 204 when nothing is left.
                while count < limit {
                    let cell = match s.next_cell() {
                        Ok(Some(c)) => c,
                        Ok(None) => break,
                        Err(e) => return self.scanner_failed(id, &e),
                    };
                    let same_row = current
                        .as_ref()
                        .is_some_and(|r| r.key.as_deref() == Some(cell.row()));
                    if !same_row {
                        if let Some(done) = current.take() {
                            if max_rows > 0 {
                                max_rows -= 1;
                                if max_rows == 0 {
                                    s.put_back(cell);
                                    current = Some(done);
                                    break;
                                }
                            }
                            set.rows.push(done);
                        }
                        current = Some(RowModel {
                            key: Some(cell.row().to_vec()),
                            cells: Vec::new(),
                        });
                    }
                    if let Some(r) = current.as_mut() {
                        r.cells.push(cell_model(&cell));
                    }
                    count += 1;
                }
                match current {
                    None => Response::empty(204),
                    Some(r) => {
                        set.rows.push(r);
                        Response::new(200, mime.content_type(), set.encode(mime.format()))
                            .with_header("Cache-Control", "no-cache")
                    }
                }
            }
            "DELETE" => {
                if let Some(r) = self.forbid_if_read_only() {
                    return r;
                }
                // HBase answers 200 whether or not the scanner existed.
                if let Some(id) = id {
                    self.scanners.remove(id);
                }
                Response::empty(200)
            }
            _ => method_not_allowed(),
        }
    }

    /// A scanner whose table went away or was disabled: ScannerInstanceResource answers 410
    /// Gone (disabled, and drops the scanner) or 404 (missing table).
    fn scanner_failed(&self, id: Option<u64>, e: &regionkv::Error) -> Response {
        match e {
            regionkv::Error::TableNotEnabled(_) => {
                if let Some(id) = id {
                    self.scanners.remove(id);
                }
                Response::text(410, "Gone")
            }
            regionkv::Error::TableNotFound(_) => not_found(),
            other => error_response(other),
        }
    }
}

/// A family, a qualifier and the body cell that names them.
type ColumnCell<'a> = (Vec<u8>, Vec<u8>, &'a CellModel);

/// One request with what the resources need of it.
struct Ctx<'a> {
    req: &'a Request,
    query: Query,
    local: SocketAddr,
    /// The method (HEAD served as GET).
    method: &'a str,
}

/// What a request body is, by Content-Type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyType {
    Xml,
    Json,
    Binary,
    Protobuf,
    Other,
}

impl Ctx<'_> {
    fn content_type(&self) -> Option<BodyType> {
        let ct = self.req.header("content-type")?;
        let mt = ct
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        Some(match mt.as_str() {
            "text/xml" | "application/xml" => BodyType::Xml,
            "application/json" => BodyType::Json,
            "application/octet-stream" => BodyType::Binary,
            "application/x-protobuf" | "application/protobuf" => BodyType::Protobuf,
            _ => BodyType::Other,
        })
    }

    /// The body's format, or 415.
    fn body_format(&self) -> Result<Format, Box<Response>> {
        match self.content_type() {
            Some(BodyType::Xml) => Ok(Format::Xml),
            Some(BodyType::Json) => Ok(Format::Json),
            Some(BodyType::Protobuf) => Err(Box::new(Response::text(
                415,
                "Unsupported Media Type: protobuf bodies are not supported by regionkv (use text/xml or application/json)",
            ))),
            _ => Err(Box::new(Response::text(
                415,
                "Unsupported Media Type: use text/xml or application/json",
            ))),
        }
    }

    /// Picks the representation by the Accept header among `produces` (in the resource's
    /// order for wildcards), or 406.
    fn negotiate(&self, produces: &[Mime]) -> Result<Mime, Box<Response>> {
        let Some(accept) = self.req.header("accept").filter(|a| !a.is_empty()) else {
            return produces
                .first()
                .copied()
                .ok_or_else(|| Box::new(not_acceptable(false)));
        };
        let mut ranges: Vec<(String, f32)> = accept
            .split(',')
            .map(|r| {
                let mut parts = r.split(';');
                let mt = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
                let q = parts
                    .filter_map(|p| p.trim().strip_prefix("q="))
                    .find_map(|q| q.trim().parse::<f32>().ok())
                    .unwrap_or(1.0);
                (mt, q)
            })
            .filter(|(mt, q)| !mt.is_empty() && *q > 0.0)
            .collect();
        ranges.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
        let mut protobuf = false;
        for (mt, _) in &ranges {
            let found = match mt.as_str() {
                "*/*" | "*" => produces.first().copied(),
                "text/*" => produces
                    .iter()
                    .copied()
                    .find(|m| matches!(m, Mime::Text | Mime::Xml)),
                "application/*" => produces
                    .iter()
                    .copied()
                    .find(|m| matches!(m, Mime::Json | Mime::Xml | Mime::Binary)),
                "text/plain" => produces.iter().copied().find(|m| *m == Mime::Text),
                "text/xml" | "application/xml" => {
                    produces.iter().copied().find(|m| *m == Mime::Xml)
                }
                "application/json" => produces.iter().copied().find(|m| *m == Mime::Json),
                "application/octet-stream" => produces.iter().copied().find(|m| *m == Mime::Binary),
                "application/x-protobuf" | "application/protobuf" => {
                    protobuf = true;
                    None
                }
                _ => None,
            };
            if let Some(m) = found {
                return Ok(m);
            }
        }
        Err(Box::new(not_acceptable(protobuf)))
    }

    /// `http://host:port{path}` for Location headers (the address the client reached).
    fn absolute(&self, path: &str) -> String {
        format!("http://{}{path}", self.local)
    }
}

/// A GET of a list of names (RootResource's table list, NamespacesResource): one name a line
/// as text, else the `model` body in the negotiated format.
fn name_list(
    ctx: &Ctx<'_>,
    names: regionkv::Result<Vec<String>>,
    model: fn(&[String], Format) -> Vec<u8>,
) -> Response {
    if ctx.method != "GET" {
        return method_not_allowed();
    }
    let mime = match ctx.negotiate(PRODUCES_TEXT_FIRST) {
        Ok(m) => m,
        Err(r) => return *r,
    };
    match names {
        Ok(names) => match mime {
            Mime::Text => Response::new(200, mime.content_type(), lines(&names)),
            _ => Response::new(200, mime.content_type(), model(&names, mime.format())),
        },
        Err(e) => error_response(&e),
    }
}

fn not_acceptable(protobuf: bool) -> Response {
    if protobuf {
        Response::text(
            406,
            "Not Acceptable: protobuf is not supported by regionkv (use text/xml or application/json)",
        )
    } else {
        Response::text(406, "Not Acceptable")
    }
}

fn not_found() -> Response {
    Response::text(404, "Not found")
}

fn method_not_allowed() -> Response {
    Response::text(405, "Method Not Allowed")
}

fn bad_request(detail: &str) -> Response {
    Response::text(400, &format!("Bad request\r\n{detail}"))
}

/// ResourceBase.processException: what a regionkv error answers.
fn error_response(e: &regionkv::Error) -> Response {
    let message = java_message(e);
    match ErrorKind::of(e) {
        ErrorKind::TableNotFound | ErrorKind::NoSuchColumnFamily | ErrorKind::NamespaceNotFound => {
            Response::text(404, &format!("Not found\r\n{message}"))
        }
        ErrorKind::IllegalArgument => Response::text(400, &format!("Bad request\r\n{message}")),
        _ => Response::text(503, &format!("Unavailable\r\n{message}")),
    }
}

/// ScannerResource.update's own mapping: a missing table 404, an illegal argument 400,
/// anything else 503 (bodies without the stack trace, as HBase's).
fn scanner_error(e: &regionkv::Error) -> Response {
    match ErrorKind::of(e) {
        ErrorKind::TableNotFound => not_found(),
        ErrorKind::IllegalArgument => Response::text(400, "Bad request"),
        _ => error_response(e),
    }
}

/// The errors HBase's RowResultGenerator swallows (DoNotRetryIOException subclasses).
fn swallowed_by_row_generator(e: &regionkv::Error) -> bool {
    matches!(
        ErrorKind::of(e),
        ErrorKind::TableNotFound | ErrorKind::NoSuchColumnFamily | ErrorKind::TableNotEnabled
    )
}

fn time_range(start: i64, end: i64) -> Result<TimeRange, Box<Response>> {
    TimeRange::between(start, end).map_err(|e| {
        Box::new(bad_request(&format!(
            "java.lang.IllegalArgumentException: {e}"
        )))
    })
}

fn parse_versions(v: &str) -> Result<u32, Box<Response>> {
    v.trim()
        .parse::<i64>()
        .ok()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n > 0)
        .ok_or_else(|| Box::new(bad_request(&format!("invalid number of versions '{v}'"))))
}

fn query_int(q: &Query, name: &str) -> Result<i64, Box<Response>> {
    match q.text(name) {
        None => Ok(0),
        Some(t) => t.trim().parse().map_err(|_| {
            Box::new(bad_request(&format!(
                "query parameter {name} is not a number: '{t}'"
            )))
        }),
    }
}

fn decode_name(segment: &str) -> Result<String, Box<Response>> {
    let bytes = url::path_decode(segment.as_bytes()).map_err(|e| Box::new(bad_request(&e.0)))?;
    String::from_utf8(bytes).map_err(|_| Box::new(bad_request("a name must be valid UTF-8")))
}

/// Percent-encodes what cannot stand in a path segment.
fn encode_path(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~:".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn lines(names: &[String]) -> String {
    names.iter().map(|n| format!("{n}\n")).collect()
}

fn mb(bytes: u64) -> i64 {
    i64::try_from(bytes / (1024 * 1024)).unwrap_or(i64::MAX)
}

fn cluster_version_string() -> String {
    format!(
        "regionkv-{} (HBase 2.x semantics)",
        env!("CARGO_PKG_VERSION")
    )
}

fn add_to_put(put: Put, f: &[u8], q: &[u8], ts: Option<i64>, value: &[u8]) -> Put {
    match ts {
        Some(ts) if ts != i64::MAX => put.add_column_at(f, q, ts, value),
        _ => put.add_column(f, q, value),
    }
}

fn cell_model(c: &Cell) -> CellModel {
    CellModel {
        column: Some(crate::common::column_name(c.family(), c.qualifier())),
        timestamp: Some(c.timestamp()),
        value: c.value().to_vec(),
    }
}

fn row_model(r: &RowResult) -> RowModel {
    RowModel {
        key: Some(r.row().to_vec()),
        cells: r.cells().iter().map(cell_model).collect(),
    }
}

/// Cells in result order grouped into rows (consecutive cells of one row form one Row).
fn cell_set(cells: &[Cell]) -> CellSet {
    let mut set = CellSet::default();
    for c in cells {
        match set.rows.last_mut() {
            Some(r) if r.key.as_deref() == Some(c.row()) => r.cells.push(cell_model(c)),
            _ => set.rows.push(RowModel {
                key: Some(c.row().to_vec()),
                cells: vec![cell_model(c)],
            }),
        }
    }
    set
}

/// The answer of an append or increment: 200, with the new cells when asked
/// (`?returnResult=true`; none: 304).
fn mutation_result(ctx: &Ctx<'_>, return_results: bool, r: &RowResult) -> Response {
    if !return_results {
        return Response::empty(200);
    }
    if r.is_empty() {
        return Response::empty(304);
    }
    let mime = match ctx.negotiate(PRODUCES_CELLS) {
        Ok(m) => m,
        Err(resp) => return *resp,
    };
    let set = CellSet {
        rows: vec![row_model(r)],
    };
    Response::new(200, mime.content_type(), set.encode(mime.format()))
}

/// A family from its REST description: HBase attribute names (a TTL written as the number
/// HBase stores for FOREVER is FOREVER).
fn family_of(c: &model::ColumnSchema) -> Result<ColumnFamilyDescriptor, regionkv::Error> {
    let mut f = ColumnFamilyDescriptor::new(c.name.as_bytes()).map_err(regionkv::Error::from)?;
    for (k, v) in &c.attrs {
        if k.eq_ignore_ascii_case("NAME") {
            continue;
        }
        f.set_attribute(k, v).map_err(regionkv::Error::from)?;
    }
    Ok(f)
}

/// TableSchemaModel of a descriptor: table attributes that differ from the defaults and
/// every other table value (CONFIGURATION and METADATA keys, `coprocessor$N` specs: HBase
/// lists all of `getValues()`), then every family with all its attributes (HBase 2.x lists
/// the family defaults too).
fn schema_of(desc: &TableDescriptor) -> model::TableSchema {
    model::TableSchema {
        name: desc.name.clone(),
        attrs: desc
            .attributes(false)
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .chain(
                desc.configuration
                    .iter()
                    .chain(desc.metadata.iter())
                    .map(|(k, v)| (k.clone(), v.clone())),
            )
            .collect(),
        columns: desc
            .families
            .iter()
            .map(|f| model::ColumnSchema {
                name: String::from_utf8_lossy(&f.name).into_owned(),
                attrs: f
                    .attributes()
                    .into_iter()
                    .filter(|(k, _)| *k != "NAME")
                    .map(|(k, v)| {
                        // HBase stores FOREVER as Integer.MAX_VALUE and shows the number.
                        let v = if k == "TTL" && v == "FOREVER" {
                            i32::MAX.to_string()
                        } else {
                            v
                        };
                        (k.to_string(), v)
                    })
                    .collect(),
            })
            .collect(),
    }
}

impl Service for RestService {
    fn name(&self) -> &'static str {
        "rest"
    }

    fn serve(&self, mut conn: Connection) {
        let mut buf = Vec::new();
        loop {
            if conn.is_shutting_down() {
                return;
            }
            let req = match http::read_request(&mut conn.stream, &mut buf, &self.limits) {
                Incoming::Closed => return,
                Incoming::Invalid(e) => {
                    tracing::debug!("rest: bad request from {}: {}", conn.peer, e.message());
                    let r = Response::text(e.status(), &e.message());
                    let _ = std::io::Write::write_all(&mut conn.stream, &r.to_bytes(false, true));
                    return;
                }
                Incoming::Request(r) => r,
            };
            let keep_alive = req.keep_alive() && !conn.is_shutting_down();
            let local = conn.local;
            let response =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.handle(&req, local)));
            let (response, keep_alive) = match response {
                Ok(r) => (r, keep_alive),
                Err(_) => {
                    tracing::error!("rest: internal error serving {} {}", req.method, req.target);
                    (Response::text(500, "Internal error"), false)
                }
            };
            let bytes = response.to_bytes(req.method == "HEAD", !keep_alive);
            if std::io::Write::write_all(&mut conn.stream, &bytes).is_err() || !keep_alive {
                return;
            }
        }
    }

    fn stopped(&self) {
        self.scanners.clear();
    }
}

impl From<BodyError> for UrlError {
    fn from(e: BodyError) -> Self {
        UrlError(e.0)
    }
}
