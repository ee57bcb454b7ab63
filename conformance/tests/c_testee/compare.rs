//! Comparing the testee's answers with the crate's verdicts.

use super::*;

#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) cases: usize,
    pub(crate) valid: usize,
    pub(crate) rules: std::collections::BTreeMap<String, usize>,
    pub(crate) failures: Vec<String>,
}

impl Tally {
    /// Asks the testee every case and compares each answer with the crate's verdict.
    pub(crate) fn run(testee: &mut Testee, cases: &[Case]) -> Tally {
        let mut tally = Tally::default();
        let answers = testee.ask_all(cases);
        for (case, got) in cases.iter().zip(answers) {
            let want = expect(case);
            tally.cases += 1;
            match &want {
                Verdict::Valid(_) => tally.valid += 1,
                Verdict::Invalid(r) => *tally.rules.entry(r.clone()).or_default() += 1,
                Verdict::Unsupported => {}
            }
            if got != want && tally.failures.len() < 20 {
                tally.failures.push(format!(
                    "{}: crate {}, testee {}",
                    case.what,
                    show(&want),
                    show(&got)
                ));
            }
        }
        tally
    }

    pub(crate) fn assert_clean(&self) {
        assert!(
            self.failures.is_empty(),
            "{} cases; the testee disagrees with the crate on:\n{}",
            self.cases,
            self.failures.join("\n")
        );
    }
}

pub(crate) fn show(v: &Verdict) -> String {
    match v {
        Verdict::Valid(b) => format!("valid ({} canonical bytes, {:.64}…)", b.len(), hex(b)),
        Verdict::Invalid(r) => format!("invalid {r}"),
        Verdict::Unsupported => "unsupported".to_owned(),
    }
}
