//! Unit tests of the S3 protocol on hand-built flow sets (FILTER and SLACK
//! alone are tested in [`super::schedule`]).

use super::S3Config;

#[test]
fn config_parses_with_the_papers_defaults_and_validates() {
    let p: crate::ProtocolConfig = serde_json::from_str(r#"{"name": "s3"}"#).unwrap();
    match &p {
        crate::ProtocolConfig::S3(c) => {
            assert_eq!(*c, S3Config { early_termination: true, probe_factor: 0.2, rto_rtts: 2.0 });
        }
        _ => panic!("wrong variant"),
    }
    assert!(p.runs_on_packets());
    let bad = S3Config { rto_rtts: 0.5, ..S3Config::default() };
    assert_eq!(bad.validate().unwrap_err().key, "rto_rtts");
}
