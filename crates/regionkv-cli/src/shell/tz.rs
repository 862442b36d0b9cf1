//! The local time zone, for printing cell timestamps the way HBase 2.4+'s shell does:
//! `java.time.LocalDateTime.ofInstant(instant, ZoneId.systemDefault()).toString()`.
//!
//! The JVM takes its default zone from the `TZ` environment variable, else from the system's
//! `/etc/localtime`; so does this module. It reads the compiled tz database files (TZif,
//! RFC 8536: the 64-bit data of version 2+ files, the 32-bit data of version 1 files, and the
//! POSIX TZ rule of their footer for instants past the last transition), plain POSIX TZ strings
//! (`EST5EDT,M3.2.0,M11.1.0`, `UTC0`, `<+0530>-5:30`), and falls back to UTC — as the JVM does
//! for a zone it cannot resolve. Leap-second tables are ignored, as `java.time` ignores them.
//!
//! No crate is used for this so that the binary adds no dependency for a few hundred lines.

use std::path::Path;

/// Seconds in a day.
const DAY: i64 = 86_400;

/// A time zone: a function from an instant to its offset from UTC.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeZone {
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// A fixed offset, seconds east of UTC.
    Fixed(i32),
    /// A POSIX TZ rule.
    Posix(PosixTz),
    /// A compiled tz database file.
    Tzif(Tzif),
}

impl TimeZone {
    /// UTC.
    pub fn utc() -> Self {
        TimeZone {
            kind: Kind::Fixed(0),
        }
    }

    /// The zone the JVM would use: `TZ` if set (a zone name under `/usr/share/zoneinfo`, a
    /// file path after `:`, or a POSIX TZ string), else `/etc/localtime`, else UTC.
    pub fn local() -> Self {
        match std::env::var("TZ") {
            Ok(tz) => Self::from_tz_value(&tz, Path::new(ZONEINFO)),
            Err(_) => std::fs::read(LOCALTIME)
                .ok()
                .and_then(|bytes| Tzif::parse(&bytes))
                .map_or_else(Self::utc, |tzif| TimeZone {
                    kind: Kind::Tzif(tzif),
                }),
        }
    }

    /// The zone a `TZ` value names, looking zone names up under `zoneinfo`.
    pub fn from_tz_value(value: &str, zoneinfo: &Path) -> Self {
        let name = value.strip_prefix(':').unwrap_or(value);
        if name.is_empty() {
            return Self::utc();
        }
        // A zone name such as "Europe/Paris" (never one that climbs out of the database).
        let path = if name.starts_with('/') {
            Some(Path::new(name).to_path_buf())
        } else if !name.split('/').any(|part| part == "..") {
            Some(zoneinfo.join(name))
        } else {
            None
        };
        if let Some(tzif) = path
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|bytes| Tzif::parse(&bytes))
        {
            return TimeZone {
                kind: Kind::Tzif(tzif),
            };
        }
        match PosixTz::parse(name) {
            Some(rule) => TimeZone {
                kind: Kind::Posix(rule),
            },
            None => Self::utc(),
        }
    }

    /// The zone of a POSIX TZ string, if it is one.
    #[cfg(test)]
    fn posix(value: &str) -> Option<Self> {
        PosixTz::parse(value).map(|rule| TimeZone {
            kind: Kind::Posix(rule),
        })
    }

    /// The zone of a TZif file's bytes, if they are one.
    #[cfg(test)]
    fn tzif(bytes: &[u8]) -> Option<Self> {
        Tzif::parse(bytes).map(|tzif| TimeZone {
            kind: Kind::Tzif(tzif),
        })
    }

    /// The offset from UTC, in seconds east, at `unix_secs`.
    pub fn offset_at(&self, unix_secs: i64) -> i32 {
        match &self.kind {
            Kind::Fixed(offset) => *offset,
            Kind::Posix(rule) => rule.offset_at(unix_secs),
            Kind::Tzif(tzif) => tzif.offset_at(unix_secs),
        }
    }
}

/// Where the tz database lives on Linux.
const ZONEINFO: &str = "/usr/share/zoneinfo";

/// The system's local zone file.
const LOCALTIME: &str = "/etc/localtime";

// ---------------------------------------------------------------------------------------------
// Calendar arithmetic (proleptic Gregorian, as java.time)

/// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub use regionkv::cell::civil_from_days;

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn month_length(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// ---------------------------------------------------------------------------------------------
// POSIX TZ strings

/// A POSIX TZ rule: a standard offset and, optionally, a daylight-saving offset with the
/// rules of when it starts and ends.
#[derive(Debug, Clone, PartialEq)]
struct PosixTz {
    /// Standard time, seconds east of UTC.
    std_offset: i32,
    /// Daylight-saving time, if the zone has it.
    dst: Option<Dst>,
}

#[derive(Debug, Clone, PartialEq)]
struct Dst {
    /// Seconds east of UTC while in effect.
    offset: i32,
    /// When it starts, in local standard time.
    start: (DateRule, i32),
    /// When it ends, in local daylight time.
    end: (DateRule, i32),
}

/// A day of the year as POSIX TZ rules name it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum DateRule {
    /// `Jn`: day 1..=365, never counting February 29.
    Julian1(u16),
    /// `n`: day 0..=365, counting February 29.
    Julian0(u16),
    /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = the last) of month `m`.
    MonthWeekDay(u32, u32, u32),
}

/// A tiny cursor over a TZ string.
struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn done(&self) -> bool {
        self.at >= self.s.len()
    }

    /// A zone abbreviation: three or more letters, or `<...>` of letters, digits and signs.
    fn name(&mut self) -> Option<()> {
        if self.eat(b'<') {
            let start = self.at;
            while let Some(c) = self.peek() {
                if c == b'>' {
                    break;
                }
                if !(c.is_ascii_alphanumeric() || c == b'+' || c == b'-') {
                    return None;
                }
                self.at += 1;
            }
            let len = self.at - start;
            return (self.eat(b'>') && len >= 3).then_some(());
        }
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.at += 1;
        }
        (self.at - start >= 3).then_some(())
    }

    fn number(&mut self, max: u32) -> Option<u32> {
        let start = self.at;
        let mut n: u32 = 0;
        while let Some(c) = self.peek().filter(u8::is_ascii_digit) {
            n = n.checked_mul(10)?.checked_add(u32::from(c - b'0'))?;
            self.at += 1;
        }
        (self.at > start && n <= max).then_some(n)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, hours up to `max_hours`.
    fn hms(&mut self, max_hours: u32) -> Option<i32> {
        let negative = if self.eat(b'-') {
            true
        } else {
            self.eat(b'+');
            false
        };
        let mut secs = self.number(max_hours)? * 3600;
        if self.eat(b':') {
            secs += self.number(59)? * 60;
            if self.eat(b':') {
                secs += self.number(59)?;
            }
        }
        let secs = i32::try_from(secs).ok()?;
        Some(if negative { -secs } else { secs })
    }

    fn date_rule(&mut self) -> Option<DateRule> {
        if self.eat(b'J') {
            let n = self.number(365)?;
            return (n >= 1).then_some(DateRule::Julian1(n as u16));
        }
        if self.eat(b'M') {
            let m = self.number(12)?;
            let ok = self.eat(b'.');
            let w = self.number(5)?;
            let ok = ok && self.eat(b'.');
            let d = self.number(6)?;
            return (ok && m >= 1 && w >= 1).then_some(DateRule::MonthWeekDay(m, w, d));
        }
        self.number(365).map(|n| DateRule::Julian0(n as u16))
    }

    /// `,date[/time]` with the default time 02:00.
    fn transition(&mut self) -> Option<(DateRule, i32)> {
        if !self.eat(b',') {
            return None;
        }
        let rule = self.date_rule()?;
        let time = if self.eat(b'/') { self.hms(167)? } else { 7200 };
        Some((rule, time))
    }
}

impl PosixTz {
    /// Parses `std offset [dst [offset] [,start[/time],end[/time]]]`.
    fn parse(s: &str) -> Option<Self> {
        let mut c = Cursor {
            s: s.as_bytes(),
            at: 0,
        };
        c.name()?;
        // POSIX offsets are hours *west* of UTC.
        let std_offset = -c.hms(24)?;
        if c.done() {
            return Some(PosixTz {
                std_offset,
                dst: None,
            });
        }
        c.name()?;
        let offset = match c.peek() {
            Some(b',') | None => std_offset + 3600,
            Some(_) => -c.hms(24)?,
        };
        let (start, end) = if c.done() {
            // The rules POSIX leaves to the implementation; glibc uses the US ones.
            (
                (DateRule::MonthWeekDay(3, 2, 0), 7200),
                (DateRule::MonthWeekDay(11, 1, 0), 7200),
            )
        } else {
            let start = c.transition()?;
            let end = c.transition()?;
            (start, end)
        };
        if !c.done() {
            return None;
        }
        Some(PosixTz {
            std_offset,
            dst: Some(Dst { offset, start, end }),
        })
    }

    fn offset_at(&self, unix_secs: i64) -> i32 {
        let Some(dst) = &self.dst else {
            return self.std_offset;
        };
        let local_year =
            civil_from_days((unix_secs + i64::from(self.std_offset)).div_euclid(DAY)).0;
        // Check the year around the instant and its neighbours, so that transitions near
        // New Year (or rules of southern zones) are decided by the nearest ones.
        let mut last: Option<(i64, i32)> = None;
        for year in [local_year - 1, local_year, local_year + 1] {
            let start = day_of(year, dst.start.0) * DAY + i64::from(dst.start.1)
                - i64::from(self.std_offset);
            let end = day_of(year, dst.end.0) * DAY + i64::from(dst.end.1) - i64::from(dst.offset);
            for (at, offset) in [(start, dst.offset), (end, self.std_offset)] {
                if at <= unix_secs && last.is_none_or(|(prev, _)| at >= prev) {
                    last = Some((at, offset));
                }
            }
        }
        last.map_or(self.std_offset, |(_, offset)| offset)
    }
}

/// Days since the epoch of the day a rule names in `year`.
fn day_of(year: i64, rule: DateRule) -> i64 {
    let jan1 = days_from_civil(year, 1, 1);
    match rule {
        DateRule::Julian1(n) => {
            let n = i64::from(n);
            jan1 + n - 1 + i64::from(is_leap(year) && n >= 60)
        }
        DateRule::Julian0(n) => jan1 + i64::from(n),
        DateRule::MonthWeekDay(month, week, weekday) => {
            let first = days_from_civil(year, month, 1);
            // 1970-01-01 was a Thursday (4, with Sunday = 0).
            let first_weekday = (first + 4).rem_euclid(7);
            let mut day =
                1 + (i64::from(weekday) - first_weekday).rem_euclid(7) + 7 * (i64::from(week) - 1);
            let length = i64::from(month_length(year, month));
            while day > length {
                day -= 7;
            }
            first + day - 1
        }
    }
}

// ---------------------------------------------------------------------------------------------
// TZif files

/// The parts of a TZif file that decide offsets.
#[derive(Debug, Clone, PartialEq)]
struct Tzif {
    /// Transition instants, ascending.
    transitions: Vec<i64>,
    /// For each transition, the index of its local time type.
    type_of: Vec<u8>,
    /// The offsets (seconds east) of the local time types.
    offsets: Vec<i32>,
    /// The rule for instants after the last transition (version 2+ footer).
    footer: Option<PosixTz>,
}

/// Reads big-endian integers off a byte slice.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.b.get(self.at..end)?;
        self.at = end;
        Some(s)
    }

    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .and_then(|s| s.try_into().ok())
            .map(u32::from_be_bytes)
    }
}

/// The six counts of a TZif header.
struct Counts {
    isut: usize,
    isstd: usize,
    leap: usize,
    time: usize,
    types: usize,
    chars: usize,
}

fn header(r: &mut Reader<'_>) -> Option<(u8, Counts)> {
    if r.take(4)? != b"TZif" {
        return None;
    }
    let version = r.take(1)?.first().copied()?;
    r.take(15)?;
    let mut n = [0usize; 6];
    for slot in &mut n {
        *slot = usize::try_from(r.u32()?).ok()?;
    }
    Some((
        version,
        Counts {
            isut: n[0],
            isstd: n[1],
            leap: n[2],
            time: n[3],
            types: n[4],
            chars: n[5],
        },
    ))
}

impl Tzif {
    fn parse(bytes: &[u8]) -> Option<Self> {
        let mut r = Reader { b: bytes, at: 0 };
        let (version, counts) = header(&mut r)?;
        let (counts, time_size) = if version >= b'2' {
            // Skip the version 1 data; the 64-bit data follows with its own header.
            let v1 = counts.time * 5
                + counts.types * 6
                + counts.chars
                + counts.leap * 8
                + counts.isstd
                + counts.isut;
            r.take(v1)?;
            let (_, counts) = header(&mut r)?;
            (counts, 8)
        } else {
            (counts, 4)
        };
        if counts.types == 0 {
            return None;
        }
        let mut transitions = Vec::with_capacity(counts.time.min(bytes.len()));
        for _ in 0..counts.time {
            let raw = r.take(time_size)?;
            transitions.push(match time_size {
                8 => i64::from_be_bytes(raw.try_into().ok()?),
                _ => i64::from(i32::from_be_bytes(raw.try_into().ok()?)),
            });
        }
        let type_of = r.take(counts.time)?.to_vec();
        let mut offsets = Vec::with_capacity(counts.types.min(bytes.len()));
        for _ in 0..counts.types {
            let t = r.take(6)?;
            offsets.push(i32::from_be_bytes(t.get(..4)?.try_into().ok()?));
        }
        if type_of.iter().any(|&i| usize::from(i) >= offsets.len()) {
            return None;
        }
        r.take(counts.chars + counts.leap * (time_size + 4) + counts.isstd + counts.isut)?;
        let footer = if version >= b'2' {
            let rest = bytes.get(r.at..).unwrap_or_default();
            let text = std::str::from_utf8(rest).ok()?;
            let rule = text.strip_prefix('\n')?.split('\n').next()?;
            if rule.is_empty() {
                None
            } else {
                PosixTz::parse(rule)
            }
        } else {
            None
        };
        Some(Tzif {
            transitions,
            type_of,
            offsets,
            footer,
        })
    }

    fn offset_at(&self, unix_secs: i64) -> i32 {
        let after = self.transitions.partition_point(|&t| t <= unix_secs);
        if after == self.transitions.len()
            && let Some(rule) = &self.footer
        {
            return rule.offset_at(unix_secs);
        }
        let type_index = match after.checked_sub(1) {
            Some(i) => self.type_of.get(i).copied().map_or(0, usize::from),
            // Before the first transition: type 0 (RFC 8536, section 3.2).
            None => 0,
        };
        self.offsets.get(type_index).copied().unwrap_or(0)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn at(year: i64, month: u32, day: u32, h: i64, m: i64) -> i64 {
        days_from_civil(year, month, day) * DAY + h * 3600 + m * 60
    }

    #[test]
    fn civil_dates_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        for days in [-800_000, -1, 0, 59, 60, 11_016, 19_675, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }

    #[test]
    fn posix_rules_follow_their_transitions() {
        let ny = TimeZone::posix("EST5EDT,M3.2.0,M11.1.0").unwrap();
        // 2023: DST from March 12 07:00 UTC to November 5 06:00 UTC.
        assert_eq!(ny.offset_at(at(2023, 3, 12, 6, 59)), -5 * 3600);
        assert_eq!(ny.offset_at(at(2023, 3, 12, 7, 0)), -4 * 3600);
        assert_eq!(ny.offset_at(at(2023, 11, 5, 5, 59)), -4 * 3600);
        assert_eq!(ny.offset_at(at(2023, 11, 5, 6, 0)), -5 * 3600);
        // The default rules are the US ones.
        assert_eq!(TimeZone::posix("EST5EDT").unwrap(), ny);
        // Southern hemisphere: DST across New Year.
        let syd = TimeZone::posix("AEST-10AEDT,M10.1.0,M4.1.0/3").unwrap();
        assert_eq!(syd.offset_at(at(2024, 1, 15, 0, 0)), 11 * 3600);
        assert_eq!(syd.offset_at(at(2024, 6, 15, 0, 0)), 10 * 3600);
        let india = TimeZone::posix("<+0530>-5:30").unwrap();
        assert_eq!(india.offset_at(0), 5 * 3600 + 1800);
        assert_eq!(TimeZone::posix("UTC0").unwrap().offset_at(123), 0);
        let julian = TimeZone::posix("XST3XDT,J60/0,J300/0").unwrap();
        assert_eq!(julian.offset_at(at(2023, 3, 2, 12, 0)), -2 * 3600);
        assert_eq!(julian.offset_at(at(2023, 2, 28, 12, 0)), -3 * 3600);
        for bad in [
            "",
            "X1",
            "EST",
            "EST5EDT,M3",
            "EST5EDT,M13.1.0,M1.1.0",
            "EST5x",
            "<ab>1",
        ] {
            assert!(TimeZone::posix(bad).is_none(), "{bad}");
        }
    }

    /// A version 2 TZif file with one transition and a footer rule.
    fn tzif_v2(transition: i64, offsets: [i32; 2], footer: &str) -> Vec<u8> {
        let mut out = Vec::new();
        let header = |out: &mut Vec<u8>, time: u32, types: u32| {
            out.extend_from_slice(b"TZif2");
            out.extend_from_slice(&[0; 15]);
            for n in [0, 0, 0, time, types, 4] {
                out.extend_from_slice(&u32::to_be_bytes(n));
            }
        };
        // Version 1 data: no transitions, one type.
        header(&mut out, 0, 1);
        out.extend_from_slice(&offsets[0].to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(b"LMT\0");
        header(&mut out, 1, 2);
        out.extend_from_slice(&transition.to_be_bytes());
        out.push(1);
        for offset in offsets {
            out.extend_from_slice(&offset.to_be_bytes());
            out.extend_from_slice(&[0, 0]);
        }
        out.extend_from_slice(b"LMT\0");
        out.extend_from_slice(format!("\n{footer}\n").as_bytes());
        out
    }

    #[test]
    fn tzif_files_use_transitions_then_the_footer() {
        let fixed = TimeZone::tzif(&tzif_v2(1_000, [100, 3600], "<+05>-5")).unwrap();
        assert_eq!(fixed.offset_at(999), 100);
        assert_eq!(
            fixed.offset_at(1_000),
            5 * 3600,
            "past the last transition: the footer"
        );
        let bytes = tzif_v2(1_000, [100, 3600], "CET-1CEST,M3.5.0,M10.5.0/3");
        let zone = TimeZone::tzif(&bytes).unwrap();
        assert_eq!(zone.offset_at(at(2024, 1, 10, 0, 0)), 3600);
        assert_eq!(zone.offset_at(at(2024, 7, 10, 0, 0)), 7200);
        let no_footer = TimeZone::tzif(&tzif_v2(1_000, [100, 3600], "")).unwrap();
        assert_eq!(no_footer.offset_at(5_000), 3600);
        for cut in 0..bytes.len() - 30 {
            let _ = TimeZone::tzif(&bytes[..cut]);
        }
        assert!(TimeZone::tzif(b"nope").is_none());
    }

    #[test]
    fn tz_values_resolve_files_posix_strings_or_utc() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("Test")).unwrap();
        std::fs::write(
            dir.path().join("Test/Zone"),
            tzif_v2(0, [0, 9 * 3600], "JST-9"),
        )
        .unwrap();
        let zone = TimeZone::from_tz_value("Test/Zone", dir.path());
        assert_eq!(zone.offset_at(10), 9 * 3600);
        assert_eq!(TimeZone::from_tz_value(":Test/Zone", dir.path()), zone);
        let posix = TimeZone::from_tz_value("JST-9", dir.path());
        assert_eq!(posix.offset_at(10), 9 * 3600);
        assert_eq!(TimeZone::from_tz_value("", dir.path()), TimeZone::utc());
        assert_eq!(
            TimeZone::from_tz_value("Nowhere/City", dir.path()),
            TimeZone::utc()
        );
        assert_eq!(
            TimeZone::from_tz_value("../etc", dir.path()),
            TimeZone::utc()
        );
    }
}
