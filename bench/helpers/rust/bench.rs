// The instrumented Rust program of bench/helpers: the rendered helper is
// pasted at the HELPER marker below, the CALL markers become the rendered call.
//   bench events N T   N probe calls from T threads; prints the time in them
//   bench hot N T P    a cache-lookup loop (T threads share one mutex when
//                      T > 1), three rounds of N iterations, with the probe when P is 1
@HELPER@
use std::collections::HashMap;
use std::sync::Mutex;

struct Entry { value: i64, hits: i64 }

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (n, threads): (usize, usize) = (args[2].parse().unwrap(), args[3].parse().unwrap());
    let start = std::time::Instant::now();
    if args[1] == "events" {
        std::thread::scope(|s| {
            for w in 0..threads {
                s.spawn(move || for i in 0..n / threads { @CALL_EVENT@ });
            }
        });
        println!("events={} hot_ns={}", n / threads * threads, start.elapsed().as_nanos());
        return;
    }
    let probe = args[4] == "1";
    let keys: Vec<String> = (0..4096).map(|i| format!("cart:{}", i)).collect();
    let mut map = HashMap::new();
    for (i, k) in keys.iter().enumerate() { map.insert(k.clone(), Entry { value: i as i64, hits: 0 }); }
    let cache = Mutex::new(map);
    let start = std::time::Instant::now();
    let mut last = start;
    for _round in 0..3 {
        last = std::time::Instant::now();
        std::thread::scope(|s| {
            for t in 0..threads {
                let (keys, cache) = (&keys, &cache);
                s.spawn(move || {
                    let mut sum = 0i64;
                    let mut held = if threads == 1 { Some(cache.lock().unwrap()) } else { None }; // one thread: no lock per iteration
                    for i in 0..n / threads {
                        let k = &keys[(i * 7 + t) & 4095];
                        let mut guard;
                        let map = match held.as_mut() { Some(g) => &mut **g, None => { guard = cache.lock().unwrap(); &mut *guard } };
                        let e = map.get_mut(k).unwrap();
                        e.hits += 1;
                        sum += e.value;
                        if probe { @CALL_HOT@ }
                    }
                    if sum == -1 { println!("{}", sum) }
                });
            }
        });
    }
    println!("iters={} total_ns={} last_ns={}", n / threads * threads, start.elapsed().as_nanos(), last.elapsed().as_nanos());
}
