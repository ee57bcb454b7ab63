//! The testee protocol's frames and messages (docs/conformance.md §2): a 4-byte little-endian
//! length, then that many bytes of UTF-8 JSON.

use std::io::{self, Read, Write};

use serde_json::{Value, json};

use super::{Case, Kind, to_hex};

/// Largest frame either side reads (4 MiB): a request of two 1 MiB messages in hex fits.
pub const CONFORM_MAX_FRAME: usize = 4 << 20;

/// Writes one frame.
pub fn write_frame(w: &mut impl Write, json: &[u8]) -> io::Result<()> {
    let n = u32::try_from(json.len())
        .ok()
        .filter(|&n| n as usize <= CONFORM_MAX_FRAME)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "frame over the bound"))?;
    w.write_all(&n.to_le_bytes())?;
    w.write_all(json)?;
    w.flush()
}

/// What reading a frame can give besides one.
#[derive(Debug)]
pub enum FrameError {
    /// The stream ended cleanly before a frame began.
    Eof,
    /// The announced length is over [`CONFORM_MAX_FRAME`]; the body is not read.
    TooLong(u32),
    /// The stream failed or ended inside a frame.
    Io(io::Error),
}

/// Reads one frame, never more than [`CONFORM_MAX_FRAME`] bytes of body.
pub fn read_frame(r: &mut impl Read) -> Result<Vec<u8>, FrameError> {
    let mut len = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut len[got..]) {
            Ok(0) if got == 0 => return Err(FrameError::Eof),
            Ok(0) => return Err(FrameError::Io(io::ErrorKind::UnexpectedEof.into())),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(FrameError::Io(e)),
        }
    }
    let n = u32::from_le_bytes(len);
    if n as usize > CONFORM_MAX_FRAME {
        return Err(FrameError::TooLong(n));
    }
    let mut body = vec![0u8; n as usize];
    r.read_exact(&mut body).map_err(FrameError::Io)?;
    Ok(body)
}

/// The runner's message for a case.
pub fn case_message(c: &Case) -> Vec<u8> {
    let mut m = json!({ "id": c.id, "kind": c.kind.name(), "hex": to_hex(&c.bytes) });
    if let Kind::Xattr(n) = c.kind {
        m["xattr_name"] = json!(n);
    }
    if let Some(r) = &c.request {
        m["request_hex"] = json!(to_hex(r));
    }
    m.to_string().into_bytes()
}

/// A testee's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every rule holds.
    Valid,
    /// A rule is broken.
    Invalid,
    /// The testee does not handle the case.
    Unsupported,
}

impl Verdict {
    /// The protocol's name.
    pub const fn name(self) -> &'static str {
        match self {
            Verdict::Valid => "valid",
            Verdict::Invalid => "invalid",
            Verdict::Unsupported => "unsupported",
        }
    }
}

/// A testee's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The id answered.
    pub id: u64,
    /// The verdict.
    pub verdict: Verdict,
    /// The rule named, if any.
    pub rule: Option<String>,
    /// The canonical re-encoding, lowercase hex, if any.
    pub canonical_hex: Option<String>,
}

impl Answer {
    /// The answer as its JSON message.
    pub fn to_json(&self) -> Vec<u8> {
        json!({
            "id": self.id,
            "verdict": self.verdict.name(),
            "rule": self.rule,
            "canonical_hex": self.canonical_hex,
        })
        .to_string()
        .into_bytes()
    }

    /// Parses a testee's frame; the error says what is wrong with it.
    pub fn parse(frame: &[u8]) -> Result<Answer, String> {
        let v: Value = serde_json::from_slice(frame).map_err(|e| format!("not JSON: {e}"))?;
        let id = v["id"].as_u64().ok_or("`id` is not an unsigned integer")?;
        let verdict = match v["verdict"].as_str() {
            Some("valid") => Verdict::Valid,
            Some("invalid") => Verdict::Invalid,
            Some("unsupported") => Verdict::Unsupported,
            _ => return Err("`verdict` is not valid, invalid or unsupported".into()),
        };
        let opt = |k: &str| match &v[k] {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s.clone())),
            _ => Err(format!("`{k}` is neither a string nor null")),
        };
        Ok(Answer {
            id,
            verdict,
            rule: opt("rule")?,
            canonical_hex: opt("canonical_hex")?,
        })
    }
}

/// A runner's message as the testee reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// The case id.
    pub id: u64,
    /// `request`, `reply` or `xattr`.
    pub kind: String,
    /// The input.
    pub bytes: Vec<u8>,
    /// For xattr cases.
    pub xattr_name: Option<String>,
    /// For reply cases.
    pub request: Option<Vec<u8>>,
}

impl Question {
    /// Parses a runner's frame.
    pub fn parse(frame: &[u8]) -> Result<Question, String> {
        let v: Value = serde_json::from_slice(frame).map_err(|e| format!("not JSON: {e}"))?;
        let hex = |k: &str| v[k].as_str().and_then(super::from_hex);
        Ok(Question {
            id: v["id"].as_u64().ok_or("`id` is not an unsigned integer")?,
            kind: v["kind"].as_str().ok_or("`kind` is missing")?.to_owned(),
            bytes: hex("hex").ok_or("`hex` is not hex")?,
            xattr_name: v["xattr_name"].as_str().map(str::to_owned),
            request: hex("request_hex"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_the_bound_holds_before_reading() {
        let mut buf = Vec::new();
        write_frame(&mut buf, br#"{"id":1}"#).unwrap();
        assert_eq!(&buf[..4], &[8, 0, 0, 0]);
        assert_eq!(read_frame(&mut &buf[..]).unwrap(), br#"{"id":1}"#);
        // A length past the bound: refused after the 4 length bytes, the body is not read.
        let mut long = ((CONFORM_MAX_FRAME + 1) as u32).to_le_bytes().to_vec();
        long.extend_from_slice(b"rest");
        let mut r = &long[..];
        assert!(
            matches!(read_frame(&mut r), Err(FrameError::TooLong(n)) if n as usize == CONFORM_MAX_FRAME + 1)
        );
        assert_eq!(r, b"rest");
        assert!(matches!(read_frame(&mut &b""[..]), Err(FrameError::Eof)));
        assert!(matches!(
            read_frame(&mut &[1u8, 0][..]),
            Err(FrameError::Io(_))
        ));
        assert!(matches!(
            read_frame(&mut &[9u8, 0, 0, 0, b'{'][..]),
            Err(FrameError::Io(_))
        ));
    }

    #[test]
    fn answers_parse_strictly() {
        let a = Answer::parse(
            br#"{"id":7,"verdict":"invalid","rule":"W7.4","canonical_hex":null,"extra":[1]}"#,
        )
        .unwrap();
        assert_eq!(
            a,
            Answer {
                id: 7,
                verdict: Verdict::Invalid,
                rule: Some("W7.4".into()),
                canonical_hex: None
            }
        );
        assert_eq!(Answer::parse(&a.to_json()).unwrap(), a);
        for bad in [
            &br#"{"id":-1,"verdict":"valid"}"#[..],
            br#"{"id":1,"verdict":"maybe"}"#,
            br#"{"id":1,"verdict":"valid","rule":5}"#,
            br#"[1]"#,
            b"\xff",
        ] {
            assert!(
                Answer::parse(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
