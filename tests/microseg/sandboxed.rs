//! Answers through the sandbox: the oracle's literal scores 100%, and the `observed` baseline's
//! Python returns what its native twin computes.

use netpress::App;
use netpress::app::PromptVariant;
use netpress::conversation::Message;
use netpress::microseg::baseline::{answer, observed_code};
use netpress::microseg::judge::judge;
use netpress::microseg::task::{limits, run};
use netpress::microseg::{MICROSEG, generate};

#[test]
fn oracle_and_observed_through_the_sandbox() {
    for id in [
        "microseg-v1-L1-s3-i0",
        "microseg-v1-L1-s3-i1",
        "microseg-v1-L1-s3-i2",
        "microseg-v1-L2-s3-i5",
        "microseg-v1-L2-s3-i3-rnsg",
        "microseg-v1-L2-s3-i3-rsg",
        "microseg-v1-L2-s3-i3-rk8s",
    ] {
        let q = id.parse().unwrap();
        let g = generate(&q).unwrap();
        let mut oracle = MICROSEG.oracle(&q).unwrap();
        let task = MICROSEG.generate(&q).unwrap();
        let prompt = task.prompt(PromptVariant::ZeroshotBase);
        let reply = oracle.reply(&[Message::user(&prompt)]).unwrap().text;
        let v = judge(&g.world, g.family, g.form, run(&g.world, &reply, &limits()));
        assert!(v.correct && v.safe, "{id}: {} {:?}", v.why, v.lines);
        let code = format!("```python\n{}```", observed_code(&g.question));
        let python = judge(&g.world, g.family, g.form, run(&g.world, &code, &limits()));
        let native = judge(&g.world, g.family, g.form, Ok(answer("observed", &g).unwrap()));
        assert_eq!(python.lines, native.lines, "{id}: {}", python.why);
        assert_eq!((python.correct, python.safe), (native.correct, native.safe), "{id}");
    }
}
