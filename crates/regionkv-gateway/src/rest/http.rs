//! HTTP/1.1 framing for the REST gateway, on top of `httparse`: the request head (bounded by
//! [`HttpLimits::max_head`], 431 beyond), the body by `Content-Length` or `Transfer-Encoding:
//! chunked` (bounded by [`HttpLimits::max_body`], 413 beyond), and responses that always carry
//! `Content-Length`.
//!
//! The parsing functions are pure (bytes in, request out) so that the fuzz target
//! `rest_request` and the unit tests drive them without a socket; [`read_request`] adds the
//! socket: it reads until a request is complete, answers `Expect: 100-continue`, and leaves
//! the bytes of a pipelined next request in the buffer.
//!
//! Invariants: a request is never read past its limits (a declared `Content-Length` above the
//! limit is refused before any body byte is read); a request both chunked and with a
//! `Content-Length`, or with a transfer coding other than `chunked`, is refused (400), so no
//! two readers of the same bytes can disagree on where the request ends.

use std::io::{self, Read, Write};

/// The bounds of one request.
#[derive(Debug, Clone, Copy)]
pub struct HttpLimits {
    /// Largest request head (request line and headers), in bytes.
    pub max_head: usize,
    /// Largest request body (after chunked decoding), in bytes.
    pub max_body: usize,
}

/// Most headers a request may carry (more is answered 431, as a head too large).
const MAX_HEADERS: usize = 100;

/// A parsed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The method, as sent (`GET`, `PUT` ...).
    pub method: String,
    /// The request target, as sent (`/t/row?v=2`): still percent-encoded.
    pub target: String,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub minor_version: u8,
    /// The headers in order; names as sent.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The body (chunked encoding removed).
    pub body: Vec<u8>,
}

impl Request {
    /// The first header named `name` (case-insensitive), as text (lossy).
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| String::from_utf8_lossy(v).trim().to_string())
    }

    /// True when the connection stays open after this request: HTTP/1.1 unless
    /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    pub fn keep_alive(&self) -> bool {
        let tokens = self
            .header("connection")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let has = |t: &str| tokens.split(',').any(|x| x.trim() == t);
        if self.minor_version == 0 {
            has("keep-alive")
        } else {
            !has("close")
        }
    }
}

/// Why a request cannot be served; each maps to a status and closes the connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpError {
    /// The head is malformed (400).
    Malformed(String),
    /// The head passed `max_head`, or has too many headers (431).
    HeadTooLarge,
    /// The body passed `max_body` (413).
    BodyTooLarge,
    /// A transfer coding other than `chunked` (501).
    UnsupportedEncoding(String),
}

impl HttpError {
    /// The response status.
    pub fn status(&self) -> u16 {
        match self {
            HttpError::Malformed(_) => 400,
            HttpError::HeadTooLarge => 431,
            HttpError::BodyTooLarge => 413,
            HttpError::UnsupportedEncoding(_) => 501,
        }
    }

    /// A one-line explanation for the response body.
    pub fn message(&self) -> String {
        match self {
            HttpError::Malformed(m) => format!("Bad request: {m}"),
            HttpError::HeadTooLarge => "Request header fields too large".to_string(),
            HttpError::BodyTooLarge => "Request entity too large".to_string(),
            HttpError::UnsupportedEncoding(e) => {
                format!("Transfer-Encoding '{e}' is not supported (only chunked)")
            }
        }
    }
}

/// How the body of a request is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyFraming {
    /// Exactly this many bytes.
    Length(usize),
    /// Chunked transfer coding.
    Chunked,
}

/// A parsed request head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The method.
    pub method: String,
    /// The request target.
    pub target: String,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub minor_version: u8,
    /// The headers in order.
    pub headers: Vec<(String, Vec<u8>)>,
    /// How the body is framed.
    pub framing: BodyFraming,
    /// Bytes of the head, final blank line included.
    pub len: usize,
}

impl Head {
    fn expects_continue(&self) -> bool {
        self.headers.iter().any(|(n, v)| {
            n.eq_ignore_ascii_case("expect") && v.eq_ignore_ascii_case(b"100-continue")
        })
    }
}

/// Parses the head at the start of `buf`: `Ok(None)` while it is incomplete (and within
/// `max_head`).
///
/// # Errors
/// [`HttpError::HeadTooLarge`] past the limit, [`HttpError::Malformed`] for bad syntax or
/// framing headers, [`HttpError::BodyTooLarge`] for a `Content-Length` above `max_body`.
pub fn parse_head(buf: &[u8], limits: &HttpLimits) -> Result<Option<Head>, HttpError> {
    // Leading blank lines before a request line are ignored (RFC 9112 section 2.2).
    let skip = buf
        .iter()
        .position(|&b| b != b'\r' && b != b'\n')
        .unwrap_or(buf.len());
    let rest = buf.get(skip..).unwrap_or_default();
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    let status = match req.parse(rest) {
        Ok(s) => s,
        Err(httparse::Error::TooManyHeaders) => return Err(HttpError::HeadTooLarge),
        Err(e) => return Err(HttpError::Malformed(e.to_string())),
    };
    let n = match status {
        httparse::Status::Partial => {
            if buf.len() > limits.max_head {
                return Err(HttpError::HeadTooLarge);
            }
            return Ok(None);
        }
        httparse::Status::Complete(n) => n,
    };
    let len = skip + n;
    if len > limits.max_head {
        return Err(HttpError::HeadTooLarge);
    }
    let method = req.method.unwrap_or_default().to_string();
    let target = req.path.unwrap_or_default().to_string();
    let minor_version = req.version.unwrap_or(1);
    let headers: Vec<(String, Vec<u8>)> = req
        .headers
        .iter()
        .map(|h| (h.name.to_string(), h.value.to_vec()))
        .collect();
    let framing = framing(&headers, limits)?;
    Ok(Some(Head {
        method,
        target,
        minor_version,
        headers,
        framing,
        len,
    }))
}

fn framing(headers: &[(String, Vec<u8>)], limits: &HttpLimits) -> Result<BodyFraming, HttpError> {
    let mut length: Option<usize> = None;
    let mut chunked = false;
    for (name, value) in headers {
        if name.eq_ignore_ascii_case("content-length") {
            let text = std::str::from_utf8(value)
                .map_err(|_| HttpError::Malformed("invalid Content-Length".to_string()))?
                .trim();
            if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                return Err(HttpError::Malformed(format!(
                    "invalid Content-Length '{text}'"
                )));
            }
            // Any length that does not fit is far above every limit.
            let n: usize = text.parse().map_err(|_| HttpError::BodyTooLarge)?;
            if length.is_some_and(|l| l != n) {
                return Err(HttpError::Malformed(
                    "conflicting Content-Length headers".to_string(),
                ));
            }
            length = Some(n);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            let text = String::from_utf8_lossy(value).to_ascii_lowercase();
            let codings: Vec<&str> = text
                .split(',')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            match codings.as_slice() {
                ["chunked"] if !chunked => chunked = true,
                [] => {}
                _ => return Err(HttpError::UnsupportedEncoding(text.trim().to_string())),
            }
        }
    }
    if chunked && length.is_some() {
        return Err(HttpError::Malformed(
            "both Transfer-Encoding and Content-Length".to_string(),
        ));
    }
    if chunked {
        return Ok(BodyFraming::Chunked);
    }
    let n = length.unwrap_or(0);
    if n > limits.max_body {
        return Err(HttpError::BodyTooLarge);
    }
    Ok(BodyFraming::Length(n))
}

/// Decodes the body framed by `framing` at the start of `buf`: `Ok(None)` while it is
/// incomplete, else the body and the bytes it took.
///
/// # Errors
/// [`HttpError::BodyTooLarge`] past `max_body`, [`HttpError::Malformed`] for a bad chunk.
pub fn parse_body(
    framing: BodyFraming,
    buf: &[u8],
    limits: &HttpLimits,
) -> Result<Option<(Vec<u8>, usize)>, HttpError> {
    match framing {
        BodyFraming::Length(n) => Ok(buf.get(..n).map(|b| (b.to_vec(), n))),
        BodyFraming::Chunked => parse_chunked(buf, limits),
    }
}

/// Chunked transfer coding (RFC 9112 section 7.1): hex size lines (extensions ignored), data,
/// CRLF; a zero size ends the body, then trailer lines up to a blank line (ignored).
fn parse_chunked(buf: &[u8], limits: &HttpLimits) -> Result<Option<(Vec<u8>, usize)>, HttpError> {
    let mut body = Vec::new();
    let mut pos = 0usize;
    loop {
        let rest = buf.get(pos..).unwrap_or_default();
        let (used, size) = match httparse::parse_chunk_size(rest) {
            Ok(httparse::Status::Complete(x)) => x,
            Ok(httparse::Status::Partial) => {
                // A size line is short; a long one is an attack or garbage.
                if rest.len() > 1024 {
                    return Err(HttpError::Malformed("chunk size line too long".to_string()));
                }
                return Ok(None);
            }
            Err(_) => return Err(HttpError::Malformed("invalid chunk size".to_string())),
        };
        pos += used;
        if size == 0 {
            return parse_trailers(buf, pos, limits).map(|end| end.map(|end| (body, end)));
        }
        let size = usize::try_from(size).map_err(|_| HttpError::BodyTooLarge)?;
        if body.len().saturating_add(size) > limits.max_body {
            return Err(HttpError::BodyTooLarge);
        }
        let end = pos.saturating_add(size);
        let Some(data) = buf.get(pos..end) else {
            return Ok(None);
        };
        match buf.get(end..end + 2) {
            None => return Ok(None),
            Some(b"\r\n") => {}
            Some(_) => {
                return Err(HttpError::Malformed(
                    "chunk data not followed by CRLF".to_string(),
                ));
            }
        }
        body.extend_from_slice(data);
        pos = end + 2;
    }
}

/// Skips the trailer section starting at `pos`; the offset after its blank line.
fn parse_trailers(
    buf: &[u8],
    mut pos: usize,
    limits: &HttpLimits,
) -> Result<Option<usize>, HttpError> {
    let start = pos;
    loop {
        let rest = buf.get(pos..).unwrap_or_default();
        let Some(nl) = rest.windows(2).position(|w| w == b"\r\n") else {
            if buf.len().saturating_sub(start) > limits.max_head {
                return Err(HttpError::HeadTooLarge);
            }
            return Ok(None);
        };
        pos += nl + 2;
        if nl == 0 {
            return Ok(Some(pos));
        }
        if pos - start > limits.max_head {
            return Err(HttpError::HeadTooLarge);
        }
    }
}

/// Parses one whole request at the start of `buf`: `Ok(None)` while incomplete, else the
/// request and the bytes it took (a pipelined next request may follow). Pure: the fuzz
/// target's entry point.
///
/// # Errors
/// As [`parse_head`] and [`parse_body`].
pub fn parse_request(
    buf: &[u8],
    limits: &HttpLimits,
) -> Result<Option<(Request, usize)>, HttpError> {
    let Some(head) = parse_head(buf, limits)? else {
        return Ok(None);
    };
    let rest = buf.get(head.len..).unwrap_or_default();
    let Some((body, used)) = parse_body(head.framing, rest, limits)? else {
        return Ok(None);
    };
    let len = head.len + used;
    Ok(Some((
        Request {
            method: head.method,
            target: head.target,
            minor_version: head.minor_version,
            headers: head.headers,
            body,
        },
        len,
    )))
}

/// What reading the next request from a connection gave.
#[derive(Debug)]
pub enum Incoming {
    /// A request.
    Request(Request),
    /// The peer closed the connection (or went silent past the idle timeout) between
    /// requests.
    Closed,
    /// The bytes cannot be a request: answer with the error and close.
    Invalid(HttpError),
}

/// Reads the next request from `stream`, starting with any bytes left in `buf` by the
/// previous one; leaves the bytes after the request in `buf`. Answers `Expect:
/// 100-continue` once the head is accepted. An I/O error or end of stream in the middle of a
/// request is [`Incoming::Closed`] (the peer went away; nothing to answer).
pub fn read_request<S: Read + Write>(
    stream: &mut S,
    buf: &mut Vec<u8>,
    limits: &HttpLimits,
) -> Incoming {
    let mut chunk = [0u8; 16 * 1024];
    let mut continued = false;
    loop {
        match parse_head(buf, limits) {
            Err(e) => return Incoming::Invalid(e),
            Ok(Some(head)) => {
                let rest = buf.get(head.len..).unwrap_or_default();
                match parse_body(head.framing, rest, limits) {
                    Err(e) => return Incoming::Invalid(e),
                    Ok(Some((body, used))) => {
                        let total = head.len + used;
                        buf.drain(..total.min(buf.len()));
                        return Incoming::Request(Request {
                            method: head.method,
                            target: head.target,
                            minor_version: head.minor_version,
                            headers: head.headers,
                            body,
                        });
                    }
                    Ok(None) => {
                        if !continued && head.minor_version >= 1 && head.expects_continue() {
                            continued = true;
                            if stream
                                .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
                                .and_then(|()| stream.flush())
                                .is_err()
                            {
                                return Incoming::Closed;
                            }
                        }
                    }
                }
            }
            Ok(None) => {}
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Incoming::Closed,
            Ok(n) => buf.extend_from_slice(chunk.get(..n).unwrap_or_default()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Incoming::Closed,
        }
    }
}

/// A response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// Extra headers (Content-Length and Connection are added on writing).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// A response with a body of `content_type`.
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Response {
            status,
            headers: vec![("Content-Type".to_string(), content_type.to_string())],
            body: body.into(),
        }
    }

    /// A response without a body.
    pub fn empty(status: u16) -> Self {
        Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// HBase's text answers (`"Not found" + CRLF`, ...).
    pub fn text(status: u16, text: &str) -> Self {
        let mut body = text.as_bytes().to_vec();
        body.extend_from_slice(b"\r\n");
        Response::new(status, "text/plain", body)
    }

    /// Adds a header.
    #[must_use]
    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_string(), value.into()));
        self
    }

    /// The response as bytes; `head_only` leaves the body out (HEAD requests) but keeps its
    /// length; `close` adds `Connection: close`.
    pub fn to_bytes(&self, head_only: bool, close: bool) -> Vec<u8> {
        let mut out = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        for (n, v) in &self.headers {
            // A header value never carries a line break (values are ours, but be strict).
            let v: String = v.chars().filter(|c| *c != '\r' && *c != '\n').collect();
            out.push_str(&format!("{n}: {v}\r\n"));
        }
        out.push_str(&format!("Content-Length: {}\r\n", self.body.len()));
        if close {
            out.push_str("Connection: close\r\n");
        }
        out.push_str("\r\n");
        let mut bytes = out.into_bytes();
        if !head_only {
            bytes.extend_from_slice(&self.body);
        }
        bytes
    }
}

/// The reason phrase of a status.
pub fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        304 => "Not Modified",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        410 => "Gone",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: HttpLimits = HttpLimits {
        max_head: 256,
        max_body: 64,
    };

    fn complete(bytes: &[u8]) -> (Request, usize) {
        match parse_request(bytes, &LIMITS) {
            Ok(Some(r)) => r,
            other => panic!("expected a request, got {other:?}"),
        }
    }

    #[test]
    fn a_simple_get_parses_and_leaves_the_next_request() {
        let bytes = b"GET /t/r HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\n";
        let (r, n) = complete(bytes);
        assert_eq!(r.method, "GET");
        assert_eq!(r.target, "/t/r");
        assert_eq!(r.header("HOST").as_deref(), Some("x"));
        assert!(r.keep_alive());
        assert_eq!(&bytes[n..], b"GET /next HTTP/1.1\r\n");
    }

    #[test]
    fn an_incomplete_head_or_body_asks_for_more() {
        assert_eq!(parse_request(b"GET / HTTP/1.1\r\nHost:", &LIMITS), Ok(None));
        let partial = b"PUT / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab";
        assert_eq!(parse_request(partial, &LIMITS), Ok(None));
        let (r, n) = complete(b"PUT / HTTP/1.1\r\nContent-Length: 5\r\n\r\nabcde");
        assert_eq!(r.body, b"abcde");
        assert_eq!(n, 42);
    }

    #[test]
    fn the_head_limit_is_431() {
        let long = format!("GET /{} HTTP/1.1\r\n", "a".repeat(300));
        assert_eq!(
            parse_request(long.as_bytes(), &LIMITS),
            Err(HttpError::HeadTooLarge)
        );
        let mut many = String::from("GET / HTTP/1.1\r\n");
        for i in 0..120 {
            many.push_str(&format!("X-{i}: 1\r\n"));
        }
        many.push_str("\r\n");
        let big = HttpLimits {
            max_head: 1 << 20,
            max_body: 10,
        };
        assert_eq!(
            parse_request(many.as_bytes(), &big),
            Err(HttpError::HeadTooLarge)
        );
        assert_eq!(HttpError::HeadTooLarge.status(), 431);
    }

    #[test]
    fn the_body_limit_is_413_before_reading_the_body() {
        let r = parse_request(b"PUT / HTTP/1.1\r\nContent-Length: 65\r\n\r\n", &LIMITS);
        assert_eq!(r, Err(HttpError::BodyTooLarge));
        let huge = b"PUT / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n";
        assert_eq!(parse_request(huge, &LIMITS), Err(HttpError::BodyTooLarge));
        assert_eq!(HttpError::BodyTooLarge.status(), 413);
    }

    #[test]
    fn chunked_bodies_are_decoded_and_limited() {
        let bytes = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\
                      3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-Trailer: 1\r\n\r\nrest";
        let (r, n) = complete(bytes);
        assert_eq!(r.body, b"abcde");
        assert_eq!(&bytes[n..], b"rest");
        let partial = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab";
        assert_eq!(parse_request(partial, &LIMITS), Ok(None));
        let big = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n41\r\n";
        assert_eq!(parse_request(big, &LIMITS), Err(HttpError::BodyTooLarge));
        let bad = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
        assert!(matches!(
            parse_request(bad, &LIMITS),
            Err(HttpError::Malformed(_))
        ));
        let no_crlf = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\naXY";
        assert!(matches!(
            parse_request(no_crlf, &LIMITS),
            Err(HttpError::Malformed(_))
        ));
    }

    #[test]
    fn ambiguous_framing_is_refused() {
        let both = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n";
        assert!(matches!(
            parse_request(both, &LIMITS),
            Err(HttpError::Malformed(_))
        ));
        let two = b"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n";
        assert!(matches!(
            parse_request(two, &LIMITS),
            Err(HttpError::Malformed(_))
        ));
        let gzip = b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n";
        assert!(matches!(
            parse_request(gzip, &LIMITS),
            Err(HttpError::UnsupportedEncoding(_))
        ));
        let sign = b"POST / HTTP/1.1\r\nContent-Length: +3\r\n\r\n";
        assert!(matches!(
            parse_request(sign, &LIMITS),
            Err(HttpError::Malformed(_))
        ));
    }

    #[test]
    fn garbage_is_malformed() {
        for bad in [
            &b"\x00\x01\x02 garbage\r\n\r\n"[..],
            b"GET\r\n\r\n",
            b"GET / HTTP/9.9\r\n\r\n",
        ] {
            assert!(
                matches!(parse_request(bad, &LIMITS), Err(HttpError::Malformed(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn keep_alive_follows_the_version_and_connection_header() {
        let (r, _) = complete(b"GET / HTTP/1.0\r\n\r\n");
        assert!(!r.keep_alive());
        let (r, _) = complete(b"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n");
        assert!(r.keep_alive());
        let (r, _) = complete(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(!r.keep_alive());
    }

    /// A stream that serves `input` in small pieces and records what is written.
    struct Script {
        input: Vec<u8>,
        pos: usize,
        written: Vec<u8>,
    }

    impl Read for Script {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = 3.min(out.len()).min(self.input.len() - self.pos);
            out[..n].copy_from_slice(&self.input[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    impl Write for Script {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.written.extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn read_request_answers_100_continue_and_keeps_pipelined_bytes() {
        let mut s = Script {
            input: b"PUT /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhiGET / HTTP/1.1\r\n\r\n"
                .to_vec(),
            pos: 0,
            written: Vec::new(),
        };
        let mut buf = Vec::new();
        match read_request(&mut s, &mut buf, &LIMITS) {
            Incoming::Request(r) => assert_eq!(r.body, b"hi"),
            other => panic!("{other:?}"),
        }
        assert_eq!(s.written, b"HTTP/1.1 100 Continue\r\n\r\n");
        match read_request(&mut s, &mut buf, &LIMITS) {
            Incoming::Request(r) => assert_eq!(r.target, "/"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            read_request(&mut s, &mut buf, &LIMITS),
            Incoming::Closed
        ));
    }

    #[test]
    fn responses_carry_content_length() {
        let r = Response::text(404, "Not found");
        let text = String::from_utf8(r.to_bytes(false, true)).unwrap_or_default();
        assert!(text.starts_with("HTTP/1.1 404 Not Found\r\n"));
        assert!(text.contains("Content-Length: 11\r\n"));
        assert!(text.contains("Connection: close\r\n"));
        assert!(text.ends_with("\r\n\r\nNot found\r\n"));
        let head = Response::text(200, "x").to_bytes(true, false);
        assert!(head.ends_with(b"Content-Length: 3\r\n\r\n"));
    }

    /// The checks of the fuzz target `rest_request` (fuzz/fuzz_targets/rest_request.rs) on
    /// stable: seeds and a fixed batch of mutations of them (bit flips, truncations,
    /// splices, random bytes) through the parser, the URL grammar and the body decoders.
    #[test]
    fn mutated_requests_never_panic() {
        use crate::rest::{filter_model, model, url};
        let seeds: [&[u8]; 4] = [
            b"GET /t/r1/cf:a,cf:b/5,10?v=2 HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n",
            b"PUT /t/fake HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 80\r\n\r\n{\"Row\":[{\"key\":\"cjE=\",\"Cell\":[{\"column\":\"Y2Y6YQ==\",\"timestamp\":1,\"$\":\"dg==\"}]}]}",
            b"POST /t/r1 HTTP/1.1\r\nContent-Type: text/xml\r\nContent-Length: 90\r\n\r\n<CellSet><Row key=\"cjE=\"><Cell column=\"Y2Y6YQ==\" timestamp=\"1\">dg==</Cell></Row></CellSet>",
            b"PUT /t/scanner HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n29\r\n{\"filter\":\"{\\\"type\\\":\\\"KeyOnlyFilter\\\"}\"}\r\n0\r\n\r\n",
        ];
        let check = |data: &[u8]| {
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
                assert!(used <= data.len());
                assert!(req.body.len() <= limits.max_body);
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
        };
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for seed in seeds {
            let big = HttpLimits {
                max_head: 8 * 1024,
                max_body: 64 * 1024,
            };
            assert!(matches!(parse_request(seed, &big), Ok(Some((_, n))) if n == seed.len()));
            check(seed);
            for _ in 0..400 {
                let mut m = seed.to_vec();
                match next() % 4 {
                    0 => {
                        let i = (next() as usize) % m.len();
                        m[i] ^= 1 << (next() % 8);
                    }
                    1 => m.truncate((next() as usize) % m.len()),
                    2 => {
                        let i = (next() as usize) % m.len();
                        let other = seeds[(next() as usize) % seeds.len()];
                        let j = (next() as usize) % other.len();
                        m.splice(i.., other[j..].iter().copied());
                    }
                    _ => {
                        let i = (next() as usize) % m.len();
                        m[i] = next() as u8;
                    }
                }
                check(&m);
            }
        }
    }
}
