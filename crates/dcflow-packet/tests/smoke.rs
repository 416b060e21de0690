use dcflow_scenario::Scenario;

fn run(toml: &str) -> dcflow_scenario::RunOutput {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"));
    dcflow_packet::run(&s).unwrap()
}

#[test]
fn smoke() {
    for proto in ["rcp", "pfabric"] {
        let out = run(&format!(
            "[topology]\nkind=\"star\"\nhosts=2\n[protocol]\nname=\"{proto}\"\n[workload]\npattern=\"explicit\"\n[[flows]]\nsrc=1\ndst=0\nsize=\"1MB\"\n"
        ));
        let f = &out.flows[0];
        println!("{proto}: {:?} ideal {} events {}", f.fct_s, f.ideal_fct_s, out.summary.events);
    }
}
