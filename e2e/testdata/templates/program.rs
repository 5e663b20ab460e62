// @HELPER@

fn main() {
    // @CALL:nested@
    // @CALL:strings@
    // @CALL:scalars@
    // @CALL:oversize@
    // @CALL:throws@
    // @CALL:secret@
    let workers: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || {
                for i in 0..25 {
                    // @CALL:thread@
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    println!("program done");
}
