//! The testee: built from `conformance/testee/` with the C compiler, and driven through the
//! runner protocol.

use super::*;

/// The testee's sources: every `.c` file of `conformance/testee/`, in name order (what the
/// documented `cc ... conformance/testee/*.c` compiles).
pub(crate) fn testee_sources() -> Vec<PathBuf> {
    let dir = Path::new(ROOT).join("conformance/testee");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("conformance/testee/ is in the tree")
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    assert!(
        files.iter().any(|p| p.ends_with("testee.c")),
        "conformance/testee/testee.c (main) is missing"
    );
    files
}

/// Builds the testee once for all the tests of this file (they run in parallel, and a second
/// `cc` writing the binary while a test starts it would race). `DNE_C_TESTEE=PATH` runs a testee
/// built elsewhere instead (for example with `-fsanitize=address,undefined`). `None` without a
/// C compiler (see `require`).
pub(crate) fn build_testee() -> Option<PathBuf> {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    if let Some(path) = std::env::var_os("DNE_C_TESTEE") {
        return Some(PathBuf::from(path));
    }
    // Asked by every test, so that each one that cannot run says so.
    let cc = crate::require::c_compiler()?;
    let built = BUILT
        .get_or_init(|| {
            // Built under a name of this process's own, then renamed into place: test runners
            // that start a process per test (nextest) build it several times at once, and one
            // of them could otherwise start the program while another was writing it.
            let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("testee");
            let building = out.with_file_name(format!("testee.{}", std::process::id()));
            let status = Command::new(&cc)
                .args(["-O2", "-Wall", "-Werror", "-Wextra", "-Iinclude", "-o"])
                .arg(&building)
                .args(testee_sources())
                .current_dir(ROOT)
                .status()
                .unwrap_or_else(|e| panic!("{cc}: {e}"));
            assert!(
                status.success(),
                "conformance/testee/ does not build cleanly"
            );
            std::fs::rename(&building, &out)
                .unwrap_or_else(|e| panic!("{} to {}: {e}", building.display(), out.display()));
            out
        })
        .clone();
    Some(built)
}

pub(crate) struct Testee {
    pub(crate) child: Child,
    pub(crate) stdin: Option<ChildStdin>,
    pub(crate) stdout: ChildStdout,
}

/// The runner's frame for one case.
pub(crate) fn frame(id: usize, case: &Case) -> String {
    let extra = match &case.kind {
        Kind::Request => r#""kind": "request""#.to_owned(),
        Kind::Reply(req) => format!(r#""kind": "reply", "request_hex": "{}""#, hex(req)),
        Kind::Xattr(name) => format!(r#""kind": "xattr", "xattr_name": "{name}""#),
    };
    format!(r#"{{"id": {id}, {extra}, "hex": "{}"}}"#, hex(&case.bytes))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex from the testee");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex from the testee"))
        .collect()
}

impl Testee {
    pub(crate) fn start(path: &Path) -> Self {
        Self::start_with_stderr(path, Stdio::inherit())
    }

    pub(crate) fn start_with_stderr(path: &Path, stderr: Stdio) -> Self {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("the testee starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        Testee {
            child,
            stdin,
            stdout,
        }
    }

    pub(crate) fn send(&mut self, json: &str) {
        let len = (json.len() as u32).to_le_bytes();
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(&len).unwrap();
        stdin.write_all(json.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    pub(crate) fn receive(&mut self) -> String {
        let mut len = [0u8; 4];
        self.stdout.read_exact(&mut len).expect("an answer frame");
        let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
        self.stdout.read_exact(&mut body).expect("the whole frame");
        String::from_utf8(body).expect("UTF-8 JSON")
    }

    pub(crate) fn ask(&mut self, id: usize, case: &Case) -> Verdict {
        self.send(&frame(id, case));
        parse_answer(id, &self.receive())
    }

    /// Asks every case, writing from a second thread while answers are read, so that the pipe
    /// round trip is not paid once per case.
    pub(crate) fn ask_all(&mut self, cases: &[Case]) -> Vec<Verdict> {
        let frames: Vec<String> = cases.iter().enumerate().map(|(i, c)| frame(i, c)).collect();
        let mut stdin = self.stdin.take().expect("stdin open");
        let writer = std::thread::spawn(move || {
            for f in frames {
                stdin.write_all(&(f.len() as u32).to_le_bytes()).unwrap();
                stdin.write_all(f.as_bytes()).unwrap();
            }
            stdin.flush().unwrap();
            stdin
        });
        let answers = (0..cases.len())
            .map(|i| parse_answer(i, &self.receive()))
            .collect();
        self.stdin = Some(writer.join().expect("the writer thread"));
        answers
    }

    /// Closes stdin and expects a clean exit.
    pub(crate) fn finish(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "the testee exits with {status}");
    }
}

/// The value of `"key": ` in the testee's answer: a string, or `None` for null.
pub(crate) fn field<'a>(json: &'a str, key: &str) -> Option<&'a str> {
    let at = json.find(&format!("\"{key}\": ")).unwrap_or_else(|| {
        panic!("answer {json:.200} has no {key}");
    });
    let rest = &json[at + key.len() + 4..];
    if rest.starts_with("null") {
        return None;
    }
    let rest = rest.strip_prefix('"').expect("a string or null");
    Some(&rest[..rest.find('"').expect("a closed string")])
}

pub(crate) fn parse_answer(id: usize, json: &str) -> Verdict {
    assert!(
        json.starts_with(&format!("{{\"id\": {id}, ")) && json.ends_with('}'),
        "answer {json:.200} is not for case {id}"
    );
    let rule = field(json, "rule");
    let canonical = field(json, "canonical_hex");
    match field(json, "verdict") {
        Some("valid") => {
            assert_eq!(rule, None, "a valid answer names no rule");
            Verdict::Valid(unhex(canonical.expect("canonical_hex of a valid case")))
        }
        Some("invalid") => {
            assert_eq!(canonical, None, "an invalid answer has no canonical_hex");
            Verdict::Invalid(rule.expect("an invalid answer names its rule").to_owned())
        }
        Some("unsupported") => Verdict::Unsupported,
        v => panic!("verdict {v:?}"),
    }
}
