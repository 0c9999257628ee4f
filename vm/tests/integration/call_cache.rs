//! Virtual calls through their inline caches (`vm::call_cache`): one call
//! site that sees receivers of several classes in turn (each a miss that
//! refills the site's word, and hits in between), a subclass that inherits
//! the method, and a class without it, which must fail as the table says
//! however the word was filled. Plain and counting interpreters, and two
//! threads sharing the sites' words.

use vm::runtime::STATUS_RUNTIME_ERROR;

use super::run_source;

/// `area` of A (1), B (2) and C : A (inherits 1), called at one site over
/// `A A B B C A B C C ...`; `total(n)` sums `n` rounds of it. D has no
/// `area`.
const CLASSES: &str = r#"
.class A
.end
.class B
.end
.class C : A
.end
.class D
.end
.method A.area(this)
  push 1
  ret
.end
.method B.area(this)
  push 2
  ret
.end
.method area_of(o)
  load o
  callvirt area
  ret
.end
.method total(n)
  .locals i s
top:
  load i
  load n
  jge done
  load s
  new A
  call area_of
  add
  new A
  call area_of
  add
  new B
  call area_of
  add
  new B
  call area_of
  add
  new C
  call area_of
  add
  new A
  call area_of
  add
  new B
  call area_of
  add
  new C
  call area_of
  add
  new C
  call area_of
  add
  store s
  inc i 1
  jmp top
done:
  load s
  ret
.end
"#;

/// Runs `main` (appended to [`CLASSES`]): its status and output.
fn run(main: &str, count: bool) -> (i32, String) {
    run_source("p.bc", &format!("{CLASSES}{main}"), count)
}

#[test]
fn one_site_answers_for_every_class_it_sees() {
    // 1+1+2+2+1+1+2+1+1 = 12 a round.
    let main = ".method main()\n  push 100\n  call total\n  print\n  push 0\n  ret\n.end\n";
    for count in [false, true] {
        assert_eq!(run(main, count), (0, "1200\n".to_string()), "count {count}");
    }
}

#[test]
fn a_class_without_the_method_fails_after_the_site_cached_others() {
    let main = "
.method main()
  push 10
  call total
  print
  new D
  call area_of
  print
  push 0
  ret
.end
";
    for count in [false, true] {
        let (status, out) = run(main, count);
        assert_eq!(
            (status, out.as_str()),
            (STATUS_RUNTIME_ERROR, "120\n"),
            "count {count}"
        );
    }
}

#[test]
fn two_threads_share_the_sites() {
    let main = "
.method worker(n)
  load n
  call total
  ret
.end
.method main()
  push 2000
  spawn worker
  push 2000
  call total
  swap
  join
  add
  print
  push 0
  ret
.end
";
    assert_eq!(run(main, false), (0, "48000\n".to_string()));
}
