//! HBase's Thrift1 gateway (the `Hbase` service of HBase 2.x's Hbase.thrift): the wire side.
//!
//! One port serves every transport and protocol HBase's server can be told to use, told
//! apart by the first bytes of a connection (HBase makes the operator pick, and a client
//! that picked differently hangs or reads "TSocket read 0 bytes"):
//!
//! | first bytes | transport | protocol |
//! |---|---|---|
//! | `0x80 0x01` | buffered | binary (strict) |
//! | `0x82` | buffered | compact |
//! | 4-byte length, then `0x80` | framed | binary |
//! | 4-byte length, then `0x82` | framed | compact |
//!
//! A frame longer than the limit, an unframed message longer than it, or bytes that are no
//! Thrift message end that connection (after an exception reply where the protocol still
//! allows one); other connections are unaffected. The handler (HBase's rules) is in
//! [`handler`]; the bindings are generated from `thrift/Hbase.thrift` (see
//! `thrift/generate.sh`).

#[allow(missing_docs, clippy::all, clippy::unwrap_used, clippy::expect_used)]
#[rustfmt::skip]
pub mod generated;
pub mod handler;

use std::cell::Cell;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::net::TcpStream;
use std::rc::Rc;
use std::sync::Arc;

use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TInputProtocol, TMessageIdentifier, TMessageType, TOutputProtocol, TStoredInputProtocol, TType,
};
use thrift::server::TProcessor;
use thrift::{ApplicationError, ApplicationErrorKind, TConfiguration};

use crate::GatewayConfig;
use crate::server::{Connection, Service};
use generated::HbaseSyncProcessor;
use handler::Handler;

/// Every method of the service: a message naming another one is answered with HBase's
/// "Invalid method name" (after its arguments are skipped, so the connection stays usable).
const METHODS: &[&str] = &[
    "enableTable",
    "disableTable",
    "isTableEnabled",
    "compact",
    "majorCompact",
    "getTableNames",
    "getTableNamesWithIsTableEnabled",
    "getColumnDescriptors",
    "getTableRegions",
    "createTable",
    "deleteTable",
    "get",
    "getVer",
    "getVerTs",
    "getRow",
    "getRowWithColumns",
    "getRowTs",
    "getRowWithColumnsTs",
    "getRows",
    "getRowsWithColumns",
    "getRowsTs",
    "getRowsWithColumnsTs",
    "mutateRow",
    "mutateRowTs",
    "mutateRows",
    "mutateRowsTs",
    "atomicIncrement",
    "deleteAll",
    "deleteAllTs",
    "deleteAllRow",
    "increment",
    "incrementRows",
    "deleteAllRowTs",
    "scannerOpenWithScan",
    "scannerOpen",
    "scannerOpenWithStop",
    "scannerOpenWithPrefix",
    "scannerOpenTs",
    "scannerOpenWithStopTs",
    "scannerGet",
    "scannerGetList",
    "scannerClose",
    "getRegionInfo",
    "append",
    "checkAndPut",
    "getThriftServerType",
    "getClusterId",
    "grant",
    "revoke",
];

/// The Thrift1 protocol over one Db.
pub struct ThriftService {
    handler: Arc<Handler>,
    processor: HbaseSyncProcessor<Arc<Handler>>,
    max_message: usize,
}

impl ThriftService {
    /// A Thrift1 service over `db`.
    pub fn new(db: regionkv::Db, config: &GatewayConfig) -> Self {
        let handler = Arc::new(Handler::new(db, config));
        ThriftService {
            processor: HbaseSyncProcessor::new(Arc::clone(&handler)),
            handler,
            max_message: config.limits.max_thrift_message,
        }
    }
}

/// How a connection speaks, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// Unframed, binary protocol.
    BufferedBinary,
    /// Unframed, compact protocol.
    BufferedCompact,
    /// Framed, binary protocol.
    FramedBinary,
    /// Framed, compact protocol.
    FramedCompact,
}

/// What the first bytes of a connection say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniffed {
    /// A Thrift connection.
    Thrift(Wire),
    /// More bytes are needed to tell.
    NeedMore,
    /// Not Thrift (or an oversized frame); the reason is for the log.
    Reject(&'static str),
}

/// Tells the transport and protocol from `head`, the bytes received so far. Frame lengths
/// above `max_frame` are rejected before anything is allocated.
pub fn sniff(head: &[u8], max_frame: usize) -> Sniffed {
    match head.first() {
        None => Sniffed::NeedMore,
        Some(0x80) => Sniffed::Thrift(Wire::BufferedBinary),
        Some(0x82) => Sniffed::Thrift(Wire::BufferedCompact),
        Some(_) if head.len() < 5 => Sniffed::NeedMore,
        Some(_) => {
            if head.starts_with(b"POST ") || head.starts_with(b"GET ") {
                return Sniffed::Reject("an HTTP request (Thrift over HTTP is not served)");
            }
            let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
            if len > max_frame {
                return Sniffed::Reject("a frame larger than the frame size limit");
            }
            match head[4] {
                0x80 => Sniffed::Thrift(Wire::FramedBinary),
                0x82 => Sniffed::Thrift(Wire::FramedCompact),
                _ => Sniffed::Reject("neither a binary nor a compact Thrift message"),
            }
        }
    }
}

impl Service for ThriftService {
    fn name(&self) -> &'static str {
        "thrift"
    }

    fn serve(&self, conn: Connection) {
        let peer = conn.peer;
        let wire = match sniff_connection(&conn.stream, self.max_message) {
            Ok(Some(w)) => w,
            Ok(None) => return,
            Err(reason) => {
                tracing::debug!("thrift: closing {peer}: {reason}");
                return;
            }
        };
        tracing::debug!("thrift: {peer} speaks {wire:?}");
        if let Err(e) = self.serve_wire(&conn, wire) {
            tracing::debug!("thrift: connection from {peer} ended: {e}");
        }
    }
}

/// Peeks until the wire can be told; `Ok(None)` when the peer closed first.
fn sniff_connection(stream: &TcpStream, max_frame: usize) -> Result<Option<Wire>, String> {
    let mut head = [0u8; 8];
    loop {
        let n = match stream.peek(&mut head) {
            Ok(0) => return Ok(None),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.to_string()),
        };
        match sniff(&head[..n], max_frame) {
            Sniffed::Thrift(w) => return Ok(Some(w)),
            Sniffed::Reject(why) => return Err(why.to_string()),
            Sniffed::NeedMore => {
                // Fewer bytes than a frame header arrived; wait a little for the rest
                // (peek returns at once while any byte is buffered).
                std::thread::sleep(std::time::Duration::from_millis(1));
                let mut probe = [0u8; 8];
                if matches!(stream.peek(&mut probe), Ok(m) if m == n) {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
            }
        }
    }
}

impl ThriftService {
    fn serve_wire(&self, conn: &Connection, wire: Wire) -> io::Result<()> {
        let read_half = conn.stream.try_clone()?;
        let write_half = conn.stream.try_clone()?;
        self.serve_io(read_half, write_half, wire, &|| conn.is_shutting_down())
    }

    /// Serves `input` (the bytes a client sent) as one connection and returns the bytes the
    /// server answered: the whole decoding path without a socket, for the fuzz target and
    /// tests. Never panics, whatever the bytes.
    pub fn serve_bytes(&self, input: &[u8]) -> Vec<u8> {
        let mut output = Vec::new();
        let wire = match sniff(input, self.max_message) {
            Sniffed::Thrift(w) => w,
            Sniffed::NeedMore | Sniffed::Reject(_) => return output,
        };
        let sink = SharedSink(Rc::new(std::cell::RefCell::new(Vec::new())));
        let _ = self.serve_io(io::Cursor::new(input.to_vec()), sink.clone(), wire, &|| {
            false
        });
        output.extend_from_slice(&sink.0.borrow());
        output
    }

    fn serve_io<R: Read + 'static, W: Write + 'static>(
        &self,
        read_half: R,
        write_half: W,
        wire: Wire,
        shutting_down: &dyn Fn() -> bool,
    ) -> io::Result<()> {
        let budget = Rc::new(Cell::new(0usize));
        let config = TConfiguration::builder()
            .max_message_size(Some(self.max_message))
            .max_frame_size(Some(self.max_message))
            .max_string_size(Some(self.max_message))
            .max_container_size(Some(self.max_message))
            .max_recursion_depth(Some(64))
            .build()
            .map_err(|e| io::Error::other(e.to_string()))?;
        let framed = matches!(wire, Wire::FramedBinary | Wire::FramedCompact);
        let reader: Box<dyn Read> = if framed {
            Box::new(FramedReader::new(read_half, self.max_message))
        } else {
            // The buffer sits above the limit, so the many small reads of decoding stay in
            // memory; the limit counts what each refill takes from the socket (a message may
            // pass it by at most the buffer's 64 KiB of read-ahead).
            Box::new(BufReader::with_capacity(
                64 * 1024,
                LimitedReader {
                    inner: read_half,
                    read: Rc::clone(&budget),
                    max: self.max_message,
                },
            ))
        };
        let out: Box<dyn Write> = if framed {
            Box::new(FramedWriter {
                inner: write_half,
                buf: Vec::with_capacity(64 * 1024),
            })
        } else {
            Box::new(BufWriter::with_capacity(64 * 1024, write_half))
        };
        // The protocol writes through one handle; scanner replies append their pre-encoded
        // rows through the other (see `Handler::scanner_get_direct`).
        let raw = SharedOut(Rc::new(std::cell::RefCell::new(out)));
        let writer: Box<dyn Write> = Box::new(raw.clone());
        let compact = matches!(wire, Wire::BufferedCompact | Wire::FramedCompact);
        let mut reply_buffer = Vec::new();
        let (mut input, mut output): (Box<dyn TInputProtocol>, Box<dyn TOutputProtocol>) =
            match wire {
                Wire::BufferedBinary | Wire::FramedBinary => (
                    Box::new(TBinaryInputProtocol::with_config(
                        reader,
                        true,
                        config.clone(),
                    )),
                    Box::new(TBinaryOutputProtocol::with_config(writer, true, config)),
                ),
                Wire::BufferedCompact | Wire::FramedCompact => (
                    Box::new(TCompactInputProtocol::with_config(reader, config.clone())),
                    Box::new(TCompactOutputProtocol::with_config(writer, config)),
                ),
            };
        loop {
            budget.set(0);
            let ident = match input.read_message_begin() {
                Ok(i) => i,
                Err(thrift::Error::Transport(e))
                    if e.kind == thrift::TransportErrorKind::EndOfFile =>
                {
                    return Ok(());
                }
                Err(e) => return Err(io::Error::other(e.to_string())),
            };
            if shutting_down() {
                return Ok(());
            }
            let result = if ident.name == "scannerGetList" || ident.name == "scannerGet" {
                self.handler.scanner_get_direct(
                    &ident.name,
                    ident.sequence_number,
                    input.as_mut(),
                    output.as_mut(),
                    &mut RawOut {
                        out: &raw,
                        compact,
                        scratch: &mut reply_buffer,
                    },
                )
            } else if METHODS.contains(&ident.name.as_str()) {
                let mut stored = TStoredInputProtocol::new(input.as_mut(), ident);
                self.processor.process(&mut stored, output.as_mut())
            } else {
                unknown_method(input.as_mut(), output.as_mut(), &ident)
            };
            // An error here is one the processor could not answer (the arguments did not
            // decode, the socket failed): the stream is out of step, so the connection ends.
            result.map_err(|e| io::Error::other(e.to_string()))?;
        }
    }
}

/// The connection's output, shared by the output protocol and [`RawOut`].
#[derive(Clone)]
struct SharedOut(Rc<std::cell::RefCell<Box<dyn Write>>>);

impl Write for SharedOut {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().write(data)
    }

    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        self.0.borrow_mut().write_all(data)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

/// Bytes written past the output protocol, in the stream's position: a list's elements
/// encoded apart (each a whole struct, so the protocol's own state is unaffected).
pub(crate) struct RawOut<'a> {
    out: &'a SharedOut,
    /// The connection speaks the compact protocol (else binary).
    pub(crate) compact: bool,
    /// A buffer kept for the connection's life, so a reply's rows are encoded without
    /// growing a fresh allocation each time.
    pub(crate) scratch: &'a mut Vec<u8>,
}

impl RawOut<'_> {
    pub(crate) fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        self.out.0.borrow_mut().write_all(data)
    }
}

/// A writer whose bytes stay readable after the protocol that owns it is gone.
#[derive(Clone)]
struct SharedSink(Rc<std::cell::RefCell<Vec<u8>>>);

impl Write for SharedSink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Skips the arguments of a call to a method the service lacks and answers as HBase's Java
/// server does (TApplicationException UNKNOWN_METHOD, "Invalid method name: 'x'").
fn unknown_method(
    input: &mut dyn TInputProtocol,
    output: &mut dyn TOutputProtocol,
    ident: &TMessageIdentifier,
) -> thrift::Result<()> {
    input.skip(TType::Struct)?;
    input.read_message_end()?;
    let error = ApplicationError::new(
        ApplicationErrorKind::UnknownMethod,
        format!("Invalid method name: '{}'", ident.name),
    );
    let reply = TMessageIdentifier::new(
        ident.name.clone(),
        TMessageType::Exception,
        ident.sequence_number,
    );
    output.write_message_begin(&reply)?;
    thrift::Error::write_application_error_to_out_protocol(&error, output)?;
    output.write_message_end()?;
    output.flush()
}

/// The unframed transport's limit: counts the bytes taken from the socket since the message
/// being read began and fails the read past `max`, so an unframed client cannot make the
/// server buffer without bound.
struct LimitedReader<R> {
    inner: R,
    read: Rc<Cell<usize>>,
    max: usize,
}

impl<R: Read> Read for LimitedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let used = self.read.get();
        if used >= self.max {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("message larger than {} bytes", self.max),
            ));
        }
        let room = (self.max - used).min(buf.len());
        let n = self.inner.read(&mut buf[..room])?;
        self.read.set(used + n);
        Ok(n)
    }
}

/// The framed transport's reader: 4-byte big-endian length, then the frame. A frame longer
/// than `max` fails before it is read.
struct FramedReader<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    max: usize,
}

impl<R: Read> FramedReader<R> {
    fn new(inner: R, max: usize) -> Self {
        FramedReader {
            inner,
            buf: Vec::new(),
            pos: 0,
            max,
        }
    }
}

impl<R: Read> Read for FramedReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.buf.len() {
            let mut len = [0u8; 4];
            self.inner.read_exact(&mut len)?;
            let len = i32::from_be_bytes(len);
            let len = usize::try_from(len)
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "negative frame size"))?;
            if len > self.max {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("frame of {len} bytes is larger than {} bytes", self.max),
                ));
            }
            self.buf.clear();
            self.buf.resize(len, 0);
            self.inner.read_exact(&mut self.buf)?;
            self.pos = 0;
        }
        let n = (self.buf.len() - self.pos).min(out.len());
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The framed transport's writer: a flush sends what was written as one frame.
struct FramedWriter<W> {
    inner: W,
    buf: Vec<u8>,
}

impl<W: Write> Write for FramedWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return self.inner.flush();
        }
        let len = u32::try_from(self.buf.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "reply too large"))?;
        let mut out = Vec::with_capacity(4 + self.buf.len());
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&self.buf);
        self.buf.clear();
        self.inner.write_all(&out)?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing_tells_every_wire_apart() {
        let max = 2 << 20;
        assert_eq!(
            sniff(&[0x80, 0x01, 0, 1], max),
            Sniffed::Thrift(Wire::BufferedBinary)
        );
        assert_eq!(
            sniff(&[0x82, 0x21], max),
            Sniffed::Thrift(Wire::BufferedCompact)
        );
        assert_eq!(
            sniff(&[0, 0, 0, 30, 0x80], max),
            Sniffed::Thrift(Wire::FramedBinary)
        );
        assert_eq!(
            sniff(&[0, 0, 0, 30, 0x82], max),
            Sniffed::Thrift(Wire::FramedCompact)
        );
        assert_eq!(sniff(&[0, 0, 0], max), Sniffed::NeedMore);
        assert_eq!(sniff(&[], max), Sniffed::NeedMore);
        assert!(matches!(
            sniff(&[0x7f, 0xff, 0xff, 0xff, 0x80], max),
            Sniffed::Reject(_)
        ));
        assert!(matches!(
            sniff(&[0, 0, 0, 9, b'x'], max),
            Sniffed::Reject(_)
        ));
        assert!(matches!(
            sniff(b"POST /hbase HTTP/1.1", max),
            Sniffed::Reject(_)
        ));
    }

    #[test]
    fn framed_reader_refuses_a_frame_over_the_limit() {
        let mut data = 100u32.to_be_bytes().to_vec();
        data.extend_from_slice(&[0u8; 100]);
        let mut r = FramedReader::new(&data[..], 50);
        let mut out = [0u8; 10];
        assert!(r.read(&mut out).is_err());
        let mut r = FramedReader::new(&data[..], 100);
        assert_eq!(r.read(&mut out).ok(), Some(10));
    }

    #[test]
    fn limited_reader_stops_at_the_message_limit() {
        let data = [7u8; 100];
        let budget = Rc::new(Cell::new(0));
        let mut r = LimitedReader {
            inner: &data[..],
            read: Rc::clone(&budget),
            max: 40,
        };
        let mut out = [0u8; 64];
        assert_eq!(r.read(&mut out).ok(), Some(40));
        assert!(r.read(&mut out).is_err());
        budget.set(0);
        assert_eq!(
            r.read(&mut out).ok(),
            Some(40),
            "the next message starts a new count"
        );
    }

    #[test]
    fn serve_bytes_answers_a_call_and_ignores_garbage() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let db = regionkv::Db::open(dir.path(), regionkv::DbOptions::default().background(false))?;
        let service = ThriftService::new(db.clone(), &GatewayConfig::default());
        // getThriftServerType(), strict binary, sequence id 7.
        let mut call = vec![0x80, 0x01, 0x00, 0x01, 0, 0, 0, 19];
        call.extend_from_slice(b"getThriftServerType");
        call.extend_from_slice(&[0, 0, 0, 7, 0]);
        let reply = service.serve_bytes(&call);
        // A reply message (type 2) ...
        assert_eq!(&reply[..4], &[0x80, 0x01, 0x00, 0x02]);
        // ... then field 0 (i32) = 1 (ONE), and the field stop.
        assert!(
            reply.ends_with(&[0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00]),
            "{reply:?}"
        );
        assert!(
            reply.windows(4).any(|w| w == [0, 0, 0, 7]),
            "the sequence id comes back"
        );
        assert!(service.serve_bytes(b"\x00\x01garbage").is_empty());
        assert!(
            service.serve_bytes(&call[..10]).is_empty(),
            "a cut message gets no answer"
        );
        db.close()?;
        Ok(())
    }
}
