use grundy_core::octal::{Engine, Game, Keep, MemoryArchive};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let code = &args[1];
    let w: usize = args[2].parse().unwrap();
    let n: usize = args[3].parse().unwrap();
    let mut e = Engine::new(&Game::parse(code).unwrap());
    e.set_threads(1);
    e.set_slide(if w >= 65536 { 65536 } else { 256 });
    e.set_keep(Keep::Window {
        front: w,
        window: w,
    })
    .unwrap();
    e.set_archive(Box::new(MemoryArchive::new()));
    let mut m: usize = std::env::args()
        .nth(4)
        .map_or(1 << 14, |s| s.parse().unwrap());
    let t = std::time::Instant::now();
    while m <= n {
        if let Err(err) = e.extend_to(m, &mut || false) {
            println!("error {err}");
            return;
        }
        let st = e.stats();
        let r = e.read_backs();
        println!(
            "{code} n={m} mask={:x} rare={} far={} deep={} reads={} values={} t={:.1}s",
            st.mask,
            st.rare_positions,
            e.far_rare().len(),
            r.deep_scans,
            r.reads,
            r.values,
            t.elapsed().as_secs_f64()
        );
        m += m / 8;
    }
}
