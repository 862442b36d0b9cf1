//! The bodies of HBase's REST gateway, in JSON and XML, as its JAXB/Jackson models
//! (`hbase-rest/.../model/*.java`) write and read them:
//!
//! | Model (Java class) | XML root | JSON |
//! |---|---|---|
//! | CellSetModel / RowModel / CellModel | `<CellSet><Row key="b64"><Cell column="b64" timestamp="N">b64</Cell>` | `{"Row":[{"key":"b64","Cell":[{"column":"b64","timestamp":N,"$":"b64"}]}]}` |
//! | ScannerModel | `<Scanner startRow=".." batch=".."><column>b64</column><filter>json</filter>` | `{"startRow":"b64","column":["b64"],"batch":N,"filter":"<json string>"}` |
//! | TableSchemaModel / ColumnSchemaModel | `<TableSchema name="t" ATTR=".."><ColumnSchema name="cf" VERSIONS="1"/>` | `{"name":"t","ColumnSchema":[{"name":"cf","VERSIONS":"1"}]}` |
//! | TableListModel / TableModel | `<TableList><table name="t"/>` | `{"table":[{"name":"t"}]}` |
//! | NamespacesModel | `<Namespaces><Namespace>default</Namespace>` | `{"Namespace":["default"]}` |
//! | NamespacesInstanceModel | `<NamespaceProperties><properties><entry><key>k</key><value>v</value>` | `{"properties":{"k":"v"}}` |
//! | TableInfoModel / TableRegionModel | `<TableInfo name="t"><Region name=".." id="N" startKey="b64" endKey="b64" location="h:p"/>` | `{"name":"t","Region":[{...}]}` |
//! | VersionModel | `<Version REST=".." JVM=".." OS=".." Server=".." Jersey=""/>` | `{"REST":"..",...}` |
//! | StorageClusterVersionModel | `<ClusterVersion Version=".."/>` | `{"Version":".."}` |
//! | StorageClusterStatusModel | `<ClusterStatus regions= requests= averageLoad=><LiveNodes><Node ..><Region ../>` | `{"regions":N,...,"LiveNodes":[...],"DeadNodes":[]}` |
//!
//! Row keys, columns and values are base64 in both formats; a timestamp is a plain number.

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use quick_xml::events::Event;
use serde_json::{Map, Value, json};

/// Base64 as Jackson and JAXB write it (standard alphabet, padded); reading accepts a
/// missing padding as well.
const B64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A body that cannot be read (answered 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyError(pub String);

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn bad(message: impl Into<String>) -> BodyError {
    BodyError(message.into())
}

/// Base64 of `bytes`.
pub fn b64(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

/// Decodes base64 (whitespace around it ignored, as JAXB does).
///
/// # Errors
/// Not base64.
pub fn unb64(text: &str) -> Result<Vec<u8>, BodyError> {
    let clean: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    B64.decode(clean.as_bytes())
        .map_err(|e| bad(format!("invalid base64 '{text}': {e}")))
}

/// The two body formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `text/xml` (also `application/xml`).
    Xml,
    /// `application/json`.
    Json,
}

// ---------------------------------------------------------------------------------------
// A small XML tree, enough for HBase's models (elements, attributes, text).

/// One XML element.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Element {
    /// The local name.
    pub name: String,
    /// Attributes in order, unescaped.
    pub attrs: Vec<(String, String)>,
    /// Child elements.
    pub children: Vec<Element>,
    /// Text content (concatenated, unescaped).
    pub text: String,
}

/// Deepest nesting an XML body may have (HBase's models nest four deep; a FilterModel is
/// carried as a JSON string).
const MAX_XML_DEPTH: usize = 32;

impl Element {
    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The children named `name`.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// Parses a document's root element.
    ///
    /// # Errors
    /// Malformed XML, nesting deeper than 32, or no root element.
    pub fn parse(bytes: &[u8]) -> Result<Element, BodyError> {
        let mut reader = quick_xml::Reader::from_reader(bytes);
        let mut stack: Vec<Element> = Vec::new();
        let mut buf = Vec::new();
        loop {
            let event = reader
                .read_event_into(&mut buf)
                .map_err(|e| bad(format!("malformed XML: {e}")))?;
            match event {
                Event::Start(s) | Event::Empty(s) if stack.len() >= MAX_XML_DEPTH => {
                    let _ = s;
                    return Err(bad("XML nested too deeply"));
                }
                Event::Start(s) => stack.push(element_of(&s)?),
                Event::Empty(s) => {
                    let e = element_of(&s)?;
                    match stack.last_mut() {
                        Some(parent) => parent.children.push(e),
                        None => return Ok(e),
                    }
                }
                Event::End(_) => {
                    let Some(done) = stack.pop() else {
                        return Err(bad("malformed XML: unbalanced end tag"));
                    };
                    match stack.last_mut() {
                        Some(parent) => parent.children.push(done),
                        None => return Ok(done),
                    }
                }
                Event::Text(t) => {
                    if let Some(top) = stack.last_mut() {
                        let text = t
                            .decode()
                            .map_err(|e| bad(format!("malformed XML text: {e}")))?;
                        let text = quick_xml::escape::unescape(&text)
                            .map_err(|e| bad(format!("malformed XML text: {e}")))?;
                        top.text.push_str(&text);
                    }
                }
                Event::CData(t) => {
                    if let Some(top) = stack.last_mut() {
                        top.text.push_str(&String::from_utf8_lossy(&t));
                    }
                }
                Event::GeneralRef(r) => {
                    if let Some(top) = stack.last_mut() {
                        let name = String::from_utf8_lossy(&r).into_owned();
                        let entity = format!("&{name};");
                        let text = quick_xml::escape::unescape(&entity)
                            .map_err(|e| bad(format!("malformed XML reference: {e}")))?;
                        top.text.push_str(&text);
                    }
                }
                Event::Eof => return Err(bad("malformed XML: no complete root element")),
                _ => {}
            }
            buf.clear();
        }
    }
}

fn element_of(s: &quick_xml::events::BytesStart<'_>) -> Result<Element, BodyError> {
    let name = String::from_utf8_lossy(s.local_name().as_ref()).into_owned();
    let mut attrs = Vec::new();
    for a in s.attributes() {
        let a = a.map_err(|e| bad(format!("malformed XML attribute: {e}")))?;
        let key = String::from_utf8_lossy(a.key.local_name().as_ref()).into_owned();
        if a.key.as_ref().starts_with(b"xmlns") {
            continue;
        }
        let value = a
            .unescape_value()
            .map_err(|e| bad(format!("malformed XML attribute: {e}")))?
            .into_owned();
        attrs.push((key, value));
    }
    Ok(Element {
        name,
        attrs,
        ..Element::default()
    })
}

/// XML text escaping.
fn esc(s: &str) -> String {
    quick_xml::escape::escape(s).into_owned()
}

/// Writes `<?xml ...?>` and the tree.
pub fn xml_document(root: &Element) -> Vec<u8> {
    let mut out = String::from(r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#);
    write_element(root, &mut out);
    out.into_bytes()
}

fn write_element(e: &Element, out: &mut String) {
    out.push('<');
    out.push_str(&e.name);
    for (k, v) in &e.attrs {
        out.push_str(&format!(" {k}=\"{}\"", esc(v)));
    }
    if e.children.is_empty() && e.text.is_empty() {
        out.push_str("/>");
        return;
    }
    out.push('>');
    out.push_str(&esc(&e.text));
    for c in &e.children {
        write_element(c, out);
    }
    out.push_str(&format!("</{}>", e.name));
}

fn el(name: &str) -> Element {
    Element {
        name: name.to_string(),
        ..Element::default()
    }
}

fn parse_json(bytes: &[u8]) -> Result<Value, BodyError> {
    serde_json::from_slice(bytes).map_err(|e| bad(format!("malformed JSON: {e}")))
}

/// A JSON scalar as Java's `toString` of it would read (strings as they are).
fn json_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A JSON field that may be one object or an array of them (Jackson reads both).
fn json_list(v: Option<&Value>) -> Vec<&Value> {
    match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().collect(),
        Some(other) => vec![other],
    }
}

fn json_i64(v: &Value, what: &str) -> Result<i64, BodyError> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .ok_or_else(|| bad(format!("{what} is not a long"))),
        Value::String(s) => s
            .trim()
            .parse()
            .map_err(|_| bad(format!("{what} is not a long: '{s}'"))),
        _ => Err(bad(format!("{what} is not a number"))),
    }
}

fn text_i64(s: &str, what: &str) -> Result<i64, BodyError> {
    s.trim()
        .parse()
        .map_err(|_| bad(format!("{what} is not a number: '{s}'")))
}

// ---------------------------------------------------------------------------------------
// CellSet

/// One cell of a CellSet (`CellModel`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellModel {
    /// `family:qualifier`; `None` when a request leaves it to the URL.
    pub column: Option<Vec<u8>>,
    /// The timestamp; `None` on a write means "now" (HBase's LATEST_TIMESTAMP).
    pub timestamp: Option<i64>,
    /// The value.
    pub value: Vec<u8>,
}

/// One row of a CellSet (`RowModel`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowModel {
    /// The row key; `None` when a request leaves it to the URL.
    pub key: Option<Vec<u8>>,
    /// The cells.
    pub cells: Vec<CellModel>,
}

/// A set of rows and cells (`CellSetModel`): every read's answer, every write's body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellSet {
    /// The rows.
    pub rows: Vec<RowModel>,
}

impl CellSet {
    /// Encodes the set.
    pub fn encode(&self, format: Format) -> Vec<u8> {
        match format {
            Format::Json => {
                let set = JsonCellSet {
                    rows: self.rows.iter().map(row_json).collect(),
                };
                serde_json::to_vec(&set).unwrap_or_default()
            }
            Format::Xml => {
                let mut root = el("CellSet");
                root.children = self.rows.iter().map(row_xml).collect();
                xml_document(&root)
            }
        }
    }

    /// Decodes a request body.
    ///
    /// # Errors
    /// Malformed JSON/XML, bad base64, a timestamp that is not a number.
    pub fn decode(body: &[u8], format: Format) -> Result<CellSet, BodyError> {
        match format {
            Format::Json => {
                let v = parse_json(body)?;
                let Value::Object(o) = &v else {
                    return Err(bad("a CellSet must be a JSON object"));
                };
                let rows = json_list(o.get("Row"))
                    .into_iter()
                    .map(row_from_json)
                    .collect::<Result<_, _>>()?;
                Ok(CellSet { rows })
            }
            Format::Xml => {
                let root = Element::parse(body)?;
                if root.name != "CellSet" {
                    return Err(bad(format!("expected <CellSet>, found <{}>", root.name)));
                }
                let rows = root
                    .children_named("Row")
                    .map(row_from_xml)
                    .collect::<Result<_, _>>()?;
                Ok(CellSet { rows })
            }
        }
    }
}

/// CellModel as Jackson writes it (fields in the model's order).
#[derive(serde::Serialize)]
struct JsonCell {
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<String>,
    timestamp: i64,
    #[serde(rename = "$")]
    value: String,
}

/// RowModel as Jackson writes it.
#[derive(serde::Serialize)]
struct JsonRow {
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    #[serde(rename = "Cell")]
    cells: Vec<JsonCell>,
}

/// CellSetModel as Jackson writes it.
#[derive(serde::Serialize)]
struct JsonCellSet {
    #[serde(rename = "Row")]
    rows: Vec<JsonRow>,
}

fn row_json(r: &RowModel) -> JsonRow {
    JsonRow {
        key: r.key.as_deref().map(b64),
        cells: r
            .cells
            .iter()
            .map(|c| JsonCell {
                column: c.column.as_deref().map(b64),
                timestamp: c.timestamp.unwrap_or(i64::MAX),
                value: b64(&c.value),
            })
            .collect(),
    }
}

fn row_xml(r: &RowModel) -> Element {
    let mut row = el("Row");
    if let Some(k) = &r.key {
        row.attrs.push(("key".into(), b64(k)));
    }
    row.children = r
        .cells
        .iter()
        .map(|c| {
            let mut cell = el("Cell");
            if let Some(col) = &c.column {
                cell.attrs.push(("column".into(), b64(col)));
            }
            cell.attrs.push((
                "timestamp".into(),
                c.timestamp.unwrap_or(i64::MAX).to_string(),
            ));
            cell.text = b64(&c.value);
            cell
        })
        .collect();
    row
}

fn opt_b64_json(v: Option<&Value>, what: &str) -> Result<Option<Vec<u8>>, BodyError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => unb64(s).map(Some),
        Some(_) => Err(bad(format!("{what} must be a base64 string"))),
    }
}

fn row_from_json(v: &Value) -> Result<RowModel, BodyError> {
    let Value::Object(o) = v else {
        return Err(bad("a Row must be a JSON object"));
    };
    let key = opt_b64_json(o.get("key"), "key")?;
    let cells = json_list(o.get("Cell"))
        .into_iter()
        .map(|c| {
            let Value::Object(c) = c else {
                return Err(bad("a Cell must be a JSON object"));
            };
            let column = opt_b64_json(c.get("column"), "column")?;
            let timestamp = match c.get("timestamp") {
                None | Some(Value::Null) => None,
                Some(t) => Some(json_i64(t, "timestamp")?),
            };
            let value = opt_b64_json(c.get("$"), "$")?.unwrap_or_default();
            Ok(CellModel {
                column,
                timestamp,
                value,
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(RowModel { key, cells })
}

fn row_from_xml(e: &Element) -> Result<RowModel, BodyError> {
    let key = e.attr("key").map(unb64).transpose()?;
    let cells = e
        .children_named("Cell")
        .map(|c| {
            Ok(CellModel {
                column: c.attr("column").map(unb64).transpose()?,
                timestamp: c
                    .attr("timestamp")
                    .map(|t| text_i64(t, "timestamp"))
                    .transpose()?,
                value: unb64(&c.text)?,
            })
        })
        .collect::<Result<_, BodyError>>()?;
    Ok(RowModel { key, cells })
}

// ---------------------------------------------------------------------------------------
// Scanner

/// The body of a scanner request (`ScannerModel`), with HBase's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScannerModel {
    /// First row (empty: the table's start).
    pub start_row: Vec<u8>,
    /// Stop row (empty: the table's end).
    pub end_row: Vec<u8>,
    /// Columns `cf` / `cf:q`.
    pub columns: Vec<Vec<u8>>,
    /// Most cells per GET of the scanner (default Integer.MAX_VALUE).
    pub batch: i64,
    /// Rows fetched at once (-1: the default).
    pub caching: i64,
    /// Time range lower bound.
    pub start_time: i64,
    /// Time range upper bound (exclusive).
    pub end_time: i64,
    /// Versions (default Integer.MAX_VALUE: all the family keeps).
    pub max_versions: i64,
    /// A FilterModel as a JSON string.
    pub filter: Option<String>,
    /// Whether blocks are cached (accepted, no effect).
    pub cache_blocks: bool,
    /// Visibility labels (regionkv has no visibility labels: must be empty).
    pub labels: Vec<String>,
    /// Most rows the scanner returns in all (newer HBase 2.x; 0 or less: no limit).
    pub limit: i64,
}

impl Default for ScannerModel {
    fn default() -> Self {
        ScannerModel {
            start_row: Vec::new(),
            end_row: Vec::new(),
            columns: Vec::new(),
            batch: i64::from(i32::MAX),
            caching: -1,
            start_time: 0,
            end_time: i64::MAX,
            max_versions: i64::from(i32::MAX),
            filter: None,
            cache_blocks: true,
            labels: Vec::new(),
            limit: -1,
        }
    }
}

impl ScannerModel {
    /// Decodes a scanner request body (an empty body is the default scanner).
    ///
    /// # Errors
    /// Malformed JSON/XML, bad base64 or numbers.
    pub fn decode(body: &[u8], format: Format) -> Result<ScannerModel, BodyError> {
        let mut m = ScannerModel::default();
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(m);
        }
        match format {
            Format::Json => {
                let v = parse_json(body)?;
                let Value::Object(o) = &v else {
                    return Err(bad("a Scanner must be a JSON object"));
                };
                for (k, v) in o {
                    match k.as_str() {
                        "startRow" => m.start_row = opt_b64_json(Some(v), k)?.unwrap_or_default(),
                        "endRow" => m.end_row = opt_b64_json(Some(v), k)?.unwrap_or_default(),
                        "column" | "columns" => {
                            for c in json_list(Some(v)) {
                                if let Some(c) = opt_b64_json(Some(c), "column")? {
                                    m.columns.push(c);
                                }
                            }
                        }
                        "batch" => m.batch = json_i64(v, k)?,
                        "caching" => m.caching = json_i64(v, k)?,
                        "startTime" => m.start_time = json_i64(v, k)?,
                        "endTime" => m.end_time = json_i64(v, k)?,
                        "maxVersions" => m.max_versions = json_i64(v, k)?,
                        "limit" => m.limit = json_i64(v, k)?,
                        "filter" => {
                            m.filter = match v {
                                Value::Null => None,
                                Value::String(s) => Some(s.clone()),
                                // Lenient: a FilterModel given as an object, not a string.
                                other => Some(other.to_string()),
                            }
                        }
                        "cacheBlocks" => {
                            m.cache_blocks = match v {
                                Value::Bool(b) => *b,
                                other => json_text(other).is_some_and(|t| t == "true"),
                            }
                        }
                        "labels" => {
                            m.labels = json_list(Some(v))
                                .into_iter()
                                .filter_map(json_text)
                                .collect();
                        }
                        _ => {}
                    }
                }
            }
            Format::Xml => {
                let root = Element::parse(body)?;
                if root.name != "Scanner" {
                    return Err(bad(format!("expected <Scanner>, found <{}>", root.name)));
                }
                for (k, v) in &root.attrs {
                    match k.as_str() {
                        "startRow" => m.start_row = unb64(v)?,
                        "endRow" => m.end_row = unb64(v)?,
                        "batch" => m.batch = text_i64(v, k)?,
                        "caching" => m.caching = text_i64(v, k)?,
                        "startTime" => m.start_time = text_i64(v, k)?,
                        "endTime" => m.end_time = text_i64(v, k)?,
                        "maxVersions" => m.max_versions = text_i64(v, k)?,
                        "limit" => m.limit = text_i64(v, k)?,
                        "cacheBlocks" => m.cache_blocks = v.trim() == "true",
                        _ => {}
                    }
                }
                for c in &root.children {
                    match c.name.as_str() {
                        "column" => m.columns.push(unb64(&c.text)?),
                        "filter" => m.filter = Some(c.text.clone()),
                        "labels" => m.labels.push(c.text.clone()),
                        _ => {}
                    }
                }
            }
        }
        Ok(m)
    }
}

// ---------------------------------------------------------------------------------------
// Schema

/// One family of a TableSchema (`ColumnSchemaModel`): a name and HBase attributes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnSchema {
    /// The family name.
    pub name: String,
    /// Attributes (`VERSIONS`, `TTL` ...) as strings, in order.
    pub attrs: Vec<(String, String)>,
}

/// A table description (`TableSchemaModel`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableSchema {
    /// The table name.
    pub name: String,
    /// Table attributes, in order.
    pub attrs: Vec<(String, String)>,
    /// The families.
    pub columns: Vec<ColumnSchema>,
}

impl TableSchema {
    /// Encodes the schema.
    pub fn encode(&self, format: Format) -> Vec<u8> {
        match format {
            Format::Json => {
                let mut m = Map::new();
                m.insert("name".into(), Value::String(self.name.clone()));
                for (k, v) in &self.attrs {
                    m.insert(k.clone(), Value::String(v.clone()));
                }
                let cols: Vec<Value> = self
                    .columns
                    .iter()
                    .map(|c| {
                        let mut cm = Map::new();
                        cm.insert("name".into(), Value::String(c.name.clone()));
                        for (k, v) in &c.attrs {
                            cm.insert(k.clone(), Value::String(v.clone()));
                        }
                        Value::Object(cm)
                    })
                    .collect();
                m.insert("ColumnSchema".into(), Value::Array(cols));
                Value::Object(m).to_string().into_bytes()
            }
            Format::Xml => {
                let mut root = el("TableSchema");
                root.attrs.push(("name".into(), self.name.clone()));
                root.attrs.extend(self.attrs.iter().cloned());
                root.children = self
                    .columns
                    .iter()
                    .map(|c| {
                        let mut e = el("ColumnSchema");
                        e.attrs.push(("name".into(), c.name.clone()));
                        e.attrs.extend(c.attrs.iter().cloned());
                        e
                    })
                    .collect();
                xml_document(&root)
            }
        }
    }

    /// HBase's `toString` (the text/plain form).
    pub fn to_text(&self) -> String {
        let mut s = format!("{{ NAME=> '{}'", self.name);
        for (k, v) in &self.attrs {
            s.push_str(&format!(", {k} => '{v}'"));
        }
        s.push_str(", COLUMNS => [ ");
        let cols: Vec<String> = self
            .columns
            .iter()
            .map(|c| {
                let mut f = format!("{{ NAME => '{}'", c.name);
                for (k, v) in &c.attrs {
                    f.push_str(&format!(", {k} => '{v}'"));
                }
                f.push_str(" }");
                f
            })
            .collect();
        s.push_str(&cols.join(", "));
        s.push_str(" ] }");
        s
    }

    /// Decodes a schema request body.
    ///
    /// # Errors
    /// Malformed JSON/XML, a family without a name.
    pub fn decode(body: &[u8], format: Format) -> Result<TableSchema, BodyError> {
        let mut t = TableSchema::default();
        match format {
            Format::Json => {
                let v = parse_json(body)?;
                let Value::Object(o) = &v else {
                    return Err(bad("a TableSchema must be a JSON object"));
                };
                for (k, v) in o {
                    match k.as_str() {
                        "name" => t.name = json_text(v).unwrap_or_default(),
                        "ColumnSchema" => {
                            for c in json_list(Some(v)) {
                                let Value::Object(c) = c else {
                                    return Err(bad("a ColumnSchema must be a JSON object"));
                                };
                                let mut col = ColumnSchema::default();
                                for (k, v) in c {
                                    let text = json_text(v).unwrap_or_default();
                                    if k == "name" {
                                        col.name = text;
                                    } else {
                                        col.attrs.push((k.clone(), text));
                                    }
                                }
                                t.columns.push(col);
                            }
                        }
                        _ => t.attrs.push((k.clone(), json_text(v).unwrap_or_default())),
                    }
                }
            }
            Format::Xml => {
                let root = Element::parse(body)?;
                if root.name != "TableSchema" {
                    return Err(bad(format!(
                        "expected <TableSchema>, found <{}>",
                        root.name
                    )));
                }
                for (k, v) in &root.attrs {
                    if k == "name" {
                        t.name = v.clone();
                    } else {
                        t.attrs.push((k.clone(), v.clone()));
                    }
                }
                for c in root.children_named("ColumnSchema") {
                    let mut col = ColumnSchema::default();
                    for (k, v) in &c.attrs {
                        if k == "name" {
                            col.name = v.clone();
                        } else {
                            col.attrs.push((k.clone(), v.clone()));
                        }
                    }
                    t.columns.push(col);
                }
            }
        }
        if t.columns.iter().any(|c| c.name.is_empty()) {
            return Err(bad("a ColumnSchema has no name"));
        }
        Ok(t)
    }
}

// ---------------------------------------------------------------------------------------
// Lists, versions, status

/// `TableListModel`: table names.
pub fn table_list(names: &[String], format: Format) -> Vec<u8> {
    match format {
        Format::Json => {
            let tables: Vec<Value> = names.iter().map(|n| json!({ "name": n })).collect();
            json!({ "table": tables }).to_string().into_bytes()
        }
        Format::Xml => {
            let mut root = el("TableList");
            root.children = names
                .iter()
                .map(|n| {
                    let mut t = el("table");
                    t.attrs.push(("name".into(), n.clone()));
                    t
                })
                .collect();
            xml_document(&root)
        }
    }
}

/// `NamespacesModel`: namespace names.
pub fn namespaces(names: &[String], format: Format) -> Vec<u8> {
    match format {
        Format::Json => json!({ "Namespace": names }).to_string().into_bytes(),
        Format::Xml => {
            let mut root = el("Namespaces");
            root.children = names
                .iter()
                .map(|n| {
                    let mut e = el("Namespace");
                    e.text = n.clone();
                    e
                })
                .collect();
            xml_document(&root)
        }
    }
}

/// `NamespacesInstanceModel`: a namespace's properties (none: `{}`).
pub fn namespace_properties(props: &[(String, String)], format: Format) -> Vec<u8> {
    match format {
        Format::Json => {
            if props.is_empty() {
                return b"{}".to_vec();
            }
            let m: Map<String, Value> = props
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            json!({ "properties": m }).to_string().into_bytes()
        }
        Format::Xml => {
            let mut root = el("NamespaceProperties");
            if !props.is_empty() {
                let mut p = el("properties");
                p.children = props
                    .iter()
                    .map(|(k, v)| {
                        let mut entry = el("entry");
                        let mut key = el("key");
                        key.text = k.clone();
                        let mut value = el("value");
                        value.text = v.clone();
                        entry.children = vec![key, value];
                        entry
                    })
                    .collect();
                root.children.push(p);
            }
            xml_document(&root)
        }
    }
}

/// Decodes a namespace body's properties (an empty body has none).
///
/// # Errors
/// Malformed JSON/XML.
pub fn decode_namespace_properties(
    body: &[u8],
    format: Format,
) -> Result<Vec<(String, String)>, BodyError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    match format {
        Format::Json => {
            let v = parse_json(body)?;
            let mut out = Vec::new();
            if let Some(Value::Object(p)) = v.get("properties") {
                for (k, v) in p {
                    out.push((k.clone(), json_text(v).unwrap_or_default()));
                }
            }
            Ok(out)
        }
        Format::Xml => {
            let root = Element::parse(body)?;
            let mut out = Vec::new();
            for p in root.children_named("properties") {
                for entry in p.children_named("entry") {
                    let get = |n: &str| {
                        entry
                            .children_named(n)
                            .next()
                            .map(|e| e.text.clone())
                            .unwrap_or_default()
                    };
                    out.push((get("key"), get("value")));
                }
            }
            Ok(out)
        }
    }
}

/// One region of `TableInfoModel` (`TableRegionModel`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionModel {
    /// HBase's region name, `table,startkey,id.encoded.`.
    pub name: String,
    /// The region id.
    pub id: i64,
    /// First row.
    pub start_key: Vec<u8>,
    /// End row (empty: the end of the table).
    pub end_key: Vec<u8>,
    /// `host:port` of the (in-process) server.
    pub location: String,
}

/// `TableInfoModel`.
pub fn table_info(table: &str, regions: &[RegionModel], format: Format) -> Vec<u8> {
    match format {
        Format::Json => {
            let rs: Vec<Value> = regions
                .iter()
                .map(|r| {
                    json!({
                        "endKey": b64(&r.end_key),
                        "id": r.id,
                        "location": r.location,
                        "name": r.name,
                        "startKey": b64(&r.start_key),
                    })
                })
                .collect();
            json!({ "name": table, "Region": rs })
                .to_string()
                .into_bytes()
        }
        Format::Xml => {
            let mut root = el("TableInfo");
            root.attrs.push(("name".into(), table.to_string()));
            root.children = regions
                .iter()
                .map(|r| {
                    let mut e = el("Region");
                    e.attrs = vec![
                        ("endKey".into(), b64(&r.end_key)),
                        ("id".into(), r.id.to_string()),
                        ("location".into(), r.location.clone()),
                        ("name".into(), r.name.clone()),
                        ("startKey".into(), b64(&r.start_key)),
                    ];
                    e
                })
                .collect();
            xml_document(&root)
        }
    }
}

/// The parts of `VersionModel`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionInfo {
    /// REST protocol version (HBase's RESTServlet.VERSION_STRING).
    pub rest: String,
    /// JVM (regionkv: none).
    pub jvm: String,
    /// Operating system.
    pub os: String,
    /// Server software.
    pub server: String,
    /// Jersey (regionkv: none, empty as HBase's usually is).
    pub jersey: String,
}

impl VersionInfo {
    /// Encodes `VersionModel`.
    pub fn encode(&self, format: Format) -> Vec<u8> {
        match format {
            Format::Json => json!({
                "REST": self.rest, "JVM": self.jvm, "OS": self.os,
                "Server": self.server, "Jersey": self.jersey,
            })
            .to_string()
            .into_bytes(),
            Format::Xml => {
                let mut root = el("Version");
                root.attrs = vec![
                    ("REST".into(), self.rest.clone()),
                    ("JVM".into(), self.jvm.clone()),
                    ("OS".into(), self.os.clone()),
                    ("Server".into(), self.server.clone()),
                    ("Jersey".into(), self.jersey.clone()),
                ];
                xml_document(&root)
            }
        }
    }

    /// HBase's `toString`.
    pub fn to_text(&self) -> String {
        format!(
            "rest {} [JVM: {}] [OS: {}] [Server: {}] [Jersey: {}]\n",
            self.rest, self.jvm, self.os, self.server, self.jersey
        )
    }
}

/// `StorageClusterVersionModel`.
pub fn cluster_version(version: &str, format: Format) -> Vec<u8> {
    match format {
        Format::Json => json!({ "Version": version }).to_string().into_bytes(),
        Format::Xml => {
            let mut root = el("ClusterVersion");
            root.attrs.push(("Version".into(), version.to_string()));
            xml_document(&root)
        }
    }
}

/// One region of the cluster status (`StorageClusterStatusModel.Node.Region`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionLoad {
    /// The region name (bytes of HBase's name).
    pub name: Vec<u8>,
    /// Stores (families).
    pub stores: i64,
    /// Storefiles.
    pub storefiles: i64,
    /// Storefile bytes, in MB.
    pub storefile_size_mb: i64,
    /// Memstore bytes, in MB.
    pub memstore_size_mb: i64,
    /// Reads served.
    pub read_requests: i64,
    /// Writes applied.
    pub write_requests: i64,
}

/// `StorageClusterStatusModel` with one live node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterStatus {
    /// The node's `host:port`.
    pub node: String,
    /// The node's start code (ms since the epoch when the gateway started).
    pub start_code: i64,
    /// Requests of the node.
    pub requests: i64,
    /// The regions.
    pub regions: Vec<RegionLoad>,
}

impl ClusterStatus {
    fn average_load(&self) -> f64 {
        self.regions.len() as f64
    }

    /// Encodes the status.
    pub fn encode(&self, format: Format) -> Vec<u8> {
        let region_fields = |r: &RegionLoad| -> Vec<(&'static str, String)> {
            vec![
                ("name", b64(&r.name)),
                ("stores", r.stores.to_string()),
                ("storefiles", r.storefiles.to_string()),
                ("storefileSizeMB", r.storefile_size_mb.to_string()),
                ("memStoreSizeMB", r.memstore_size_mb.to_string()),
                ("storefileIndexSizeKB", "0".into()),
                ("readRequestsCount", r.read_requests.to_string()),
                ("cpRequestsCount", "0".into()),
                ("writeRequestsCount", r.write_requests.to_string()),
                ("rootIndexSizeKB", "0".into()),
                ("totalStaticIndexSizeKB", "0".into()),
                ("totalStaticBloomSizeKB", "0".into()),
                ("totalCompactingKVs", "0".into()),
                ("currentCompactedKVs", "0".into()),
            ]
        };
        match format {
            Format::Json => {
                let regions: Vec<Value> = self
                    .regions
                    .iter()
                    .map(|r| {
                        let m: Map<String, Value> = region_fields(r)
                            .into_iter()
                            .map(|(k, v)| {
                                let v = if k == "name" {
                                    Value::String(v)
                                } else {
                                    v.parse::<i64>()
                                        .map(Value::from)
                                        .unwrap_or(Value::String(v))
                                };
                                (k.to_string(), v)
                            })
                            .collect();
                        Value::Object(m)
                    })
                    .collect();
                json!({
                    "regions": self.regions.len(),
                    "requests": self.requests,
                    "averageLoad": self.average_load(),
                    "LiveNodes": [{
                        "name": self.node,
                        "startCode": self.start_code,
                        "requests": self.requests,
                        "heapSizeMB": 0,
                        "maxHeapSizeMB": 0,
                        "Region": regions,
                    }],
                    "DeadNodes": [],
                })
                .to_string()
                .into_bytes()
            }
            Format::Xml => {
                let mut node = el("Node");
                node.attrs = vec![
                    ("name".into(), self.node.clone()),
                    ("startCode".into(), self.start_code.to_string()),
                    ("requests".into(), self.requests.to_string()),
                    ("heapSizeMB".into(), "0".into()),
                    ("maxHeapSizeMB".into(), "0".into()),
                ];
                node.children = self
                    .regions
                    .iter()
                    .map(|r| {
                        let mut e = el("Region");
                        e.attrs = region_fields(r)
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), v))
                            .collect();
                        e
                    })
                    .collect();
                let mut live = el("LiveNodes");
                live.children.push(node);
                let mut root = el("ClusterStatus");
                root.attrs = vec![
                    ("regions".into(), self.regions.len().to_string()),
                    ("requests".into(), self.requests.to_string()),
                    ("averageLoad".into(), self.average_load().to_string()),
                ];
                root.children = vec![live, el("DeadNodes")];
                xml_document(&root)
            }
        }
    }

    /// HBase's `toString` (abridged to the fields regionkv has).
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "1 live servers, 0 dead servers, {:.4} average load\n\n1 live servers\n    {} {}\n        requests={}, regions={}\n        heapSizeMB=0\n        maxHeapSizeMB=0\n\n",
            self.average_load(),
            self.node,
            self.start_code,
            self.requests,
            self.regions.len()
        );
        for r in &self.regions {
            s.push_str(&format!(
                "        {}\n            stores={}\n            storefiless={}\n            storefileSizeMB={}\n            memstoreSizeMB={}\n            readRequestsCount={}\n            writeRequestsCount={}\n",
                String::from_utf8_lossy(&r.name),
                r.stores,
                r.storefiles,
                r.storefile_size_mb,
                r.memstore_size_mb,
                r.read_requests,
                r.write_requests
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> CellSet {
        CellSet {
            rows: vec![
                RowModel {
                    key: Some(b"row\x00\xff".to_vec()),
                    cells: vec![
                        CellModel {
                            column: Some(b"cf:a".to_vec()),
                            timestamp: Some(1_700_000_000_000),
                            value: b"<&>\"'".to_vec(),
                        },
                        CellModel {
                            column: Some(b"cf:".to_vec()),
                            timestamp: Some(1),
                            value: Vec::new(),
                        },
                    ],
                },
                RowModel {
                    key: Some(b"r2".to_vec()),
                    cells: vec![],
                },
            ],
        }
    }

    #[test]
    fn cellset_json_round_trips_and_has_hbase_field_names() -> Result<(), BodyError> {
        let bytes = sample().encode(Format::Json);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        assert!(text.starts_with(r#"{"Row":[{"key":"cm93AP8=","Cell":[{"column":"Y2Y6YQ==","timestamp":1700000000000,"$":"#), "{text}");
        assert_eq!(CellSet::decode(&bytes, Format::Json)?, sample());
        Ok(())
    }

    #[test]
    fn cellset_xml_round_trips_and_has_hbase_element_names() -> Result<(), BodyError> {
        let bytes = sample().encode(Format::Xml);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        assert!(text.contains(r#"<CellSet><Row key="cm93AP8="><Cell column="Y2Y6YQ==" timestamp="1700000000000">PCY+Iic=</Cell>"#), "{text}");
        assert_eq!(CellSet::decode(&bytes, Format::Xml)?, sample());
        Ok(())
    }

    #[test]
    fn written_cellsets_may_leave_out_keys_columns_and_timestamps() -> Result<(), BodyError> {
        let j = CellSet::decode(br#"{"Row":{"Cell":{"$":"dg=="}}}"#, Format::Json)?;
        assert_eq!(
            j.rows,
            [RowModel {
                key: None,
                cells: vec![CellModel {
                    column: None,
                    timestamp: None,
                    value: b"v".to_vec()
                }]
            }]
        );
        let x = CellSet::decode(
            b"<CellSet><Row><Cell>dg</Cell></Row></CellSet>",
            Format::Xml,
        )?;
        assert_eq!(x, j);
        Ok(())
    }

    #[test]
    fn bad_bodies_are_errors() {
        assert!(CellSet::decode(b"{", Format::Json).is_err());
        assert!(CellSet::decode(br#"{"Row":[{"key":"!!"}]}"#, Format::Json).is_err());
        assert!(CellSet::decode(b"<CellSet><Row>", Format::Xml).is_err());
        assert!(CellSet::decode(b"<Other/>", Format::Xml).is_err());
        let deep = "<a>".repeat(100);
        assert!(Element::parse(deep.as_bytes()).is_err());
        assert!(
            CellSet::decode(
                br#"<CellSet><Row><Cell timestamp="x">dg==</Cell></Row></CellSet>"#,
                Format::Xml
            )
            .is_err()
        );
    }

    #[test]
    fn scanner_model_defaults_and_both_formats() -> Result<(), BodyError> {
        let d = ScannerModel::decode(b"", Format::Json)?;
        assert_eq!(d, ScannerModel::default());
        let j = ScannerModel::decode(
            br#"{"startRow":"YQ==","endRow":"eg==","column":["Y2Y6YQ=="],"batch":5,"maxVersions":2,"filter":"{\"type\":\"KeyOnlyFilter\"}"}"#,
            Format::Json,
        )?;
        let x = ScannerModel::decode(
            br#"<Scanner startRow="YQ==" endRow="eg==" batch="5" maxVersions="2"><column>Y2Y6YQ==</column><filter>{"type":"KeyOnlyFilter"}</filter></Scanner>"#,
            Format::Xml,
        )?;
        assert_eq!(j, x);
        assert_eq!(j.start_row, b"a");
        assert_eq!(j.batch, 5);
        assert_eq!(j.filter.as_deref(), Some(r#"{"type":"KeyOnlyFilter"}"#));
        Ok(())
    }

    #[test]
    fn table_schema_round_trips() -> Result<(), BodyError> {
        let s = TableSchema {
            name: "t".into(),
            attrs: vec![("READONLY".into(), "true".into())],
            columns: vec![ColumnSchema {
                name: "cf".into(),
                attrs: vec![("VERSIONS".into(), "3".into())],
            }],
        };
        for f in [Format::Json, Format::Xml] {
            assert_eq!(TableSchema::decode(&s.encode(f), f)?, s);
        }
        let j = TableSchema::decode(
            br#"{"name":"t","ColumnSchema":[{"name":"cf","VERSIONS":5}]}"#,
            Format::Json,
        )?;
        assert_eq!(
            j.columns[0].attrs,
            [("VERSIONS".to_string(), "5".to_string())]
        );
        assert!(
            TableSchema::decode(
                br#"{"name":"t","ColumnSchema":[{"VERSIONS":5}]}"#,
                Format::Json
            )
            .is_err()
        );
        Ok(())
    }

    #[test]
    fn lists_and_namespaces() -> Result<(), BodyError> {
        let names = vec!["a".to_string(), "ns:b".to_string()];
        assert_eq!(
            table_list(&names, Format::Json),
            br#"{"table":[{"name":"a"},{"name":"ns:b"}]}"#
        );
        assert!(
            String::from_utf8_lossy(&table_list(&names, Format::Xml))
                .ends_with(r#"<TableList><table name="a"/><table name="ns:b"/></TableList>"#)
        );
        assert_eq!(
            namespaces(&names, Format::Json),
            br#"{"Namespace":["a","ns:b"]}"#
        );
        let props = vec![("k".to_string(), "v".to_string())];
        for f in [Format::Json, Format::Xml] {
            assert_eq!(
                decode_namespace_properties(&namespace_properties(&props, f), f)?,
                props
            );
        }
        assert_eq!(namespace_properties(&[], Format::Json), b"{}");
        Ok(())
    }
}
