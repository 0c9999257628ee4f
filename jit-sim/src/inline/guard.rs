//! Receiver tests for guarded inlining (Arnold & Grove 2005, section 5.1:
//! guarded inlining of the dominant targets of a virtual call).
//!
//! A guarded inline is right only if the guard holds exactly for receivers
//! that would run the inlined code. Three kinds of target:
//!
//! - a receiver class with [`Guard::ExactClass`]: `isclass C`. Exact by
//!   definition; subclasses of C take the slow path even when they would
//!   run the same method.
//! - a receiver class with [`Guard::Subclasses`]: `instanceof C`, sound only
//!   if no subclass of C overrides the method (class hierarchy analysis;
//!   the program is closed, no class is loaded later). Refused otherwise.
//! - a *method* ([`Target::Method`]), which is what a profile records (docs/LANGUAGE.md:
//!   a virtual method is named after the class that defines the
//!   code that ran): every receiver class that runs it. That is "an object
//!   of C, the method's class, and not of any subclass D of C that defines
//!   the method again" (below such a D everything runs D's code or an
//!   override of it), so the guard is `instanceof C` preceded by
//!   `not instanceof D` for each such D, or `isclass C` when C has no
//!   subclasses.

use vm::module::{ClassId, MethodId, Module, Op, SelectorId};

use super::{Guard, Refusal, Target};

/// One receiver test: `dup; OP; jz/jnz next` where `OP` is `isclass` or
/// `instanceof`, and the fast path needs the result to be `expect`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Test {
    /// `IsClass(C)` or `InstanceOf(C)`.
    pub op: Op,
    /// The result the fast path needs.
    pub expect: bool,
}

/// The method a guarded target runs and the tests that select exactly the
/// receivers that run it.
pub fn tests_for(
    module: &Module,
    target: Target,
    sel: SelectorId,
) -> Result<(MethodId, Vec<Test>), Refusal> {
    match target {
        Target::Static => Err(Refusal::Unreachable),
        Target::Guarded { class, guard } => {
            let Some(callee) = module.resolve_virtual(class, sel) else {
                return Err(Refusal::NotUnderstood { class });
            };
            match guard {
                Guard::ExactClass => Ok((
                    callee,
                    vec![Test {
                        op: Op::IsClass(class),
                        expect: true,
                    }],
                )),
                Guard::Subclasses => {
                    if let Some(by) = overriding_subclasses(module, class, sel).first() {
                        return Err(Refusal::Overridden { by: *by });
                    }
                    Ok((
                        callee,
                        vec![Test {
                            op: Op::InstanceOf(class),
                            expect: true,
                        }],
                    ))
                }
            }
        }
        Target::Method { method } => {
            let class = module.methods[method as usize]
                .class
                .expect("validated: a virtual method");
            let mut tests: Vec<Test> = overriding_subclasses(module, class, sel)
                .into_iter()
                .map(|d| Test {
                    op: Op::InstanceOf(d),
                    expect: false,
                })
                .collect();
            let has_subclasses = (0..module.classes.len() as ClassId)
                .any(|k| k != class && module.is_subclass(k, class));
            tests.push(Test {
                op: if has_subclasses {
                    Op::InstanceOf(class)
                } else {
                    Op::IsClass(class)
                },
                expect: true,
            });
            Ok((method, tests))
        }
    }
}

/// The subclasses D of `class` (not `class` itself) that define `sel`
/// with no class strictly between `class` and D defining it: the roots of
/// the subtrees that do not run `class`'s method.
pub fn overriding_subclasses(module: &Module, class: ClassId, sel: SelectorId) -> Vec<ClassId> {
    let defines = |k: ClassId| {
        module
            .methods
            .iter()
            .any(|m| m.class == Some(k) && m.selector == Some(sel))
    };
    (0..module.classes.len() as ClassId)
        .filter(|&d| d != class && module.is_subclass(d, class) && defines(d))
        .filter(|&d| {
            // No definer strictly between `class` and d.
            let mut k = module.classes[d as usize].superclass;
            while let Some(x) = k {
                if x == class {
                    return true;
                }
                if defines(x) {
                    return false;
                }
                k = module.classes[x as usize].superclass;
            }
            true
        })
        .collect()
}

/// The tests as a log reads them: `isclass Square`,
/// `instanceof Shape, not instanceof Circle`.
pub fn describe(module: &Module, tests: &[Test]) -> String {
    let name = |c: ClassId| {
        module
            .classes
            .get(c as usize)
            .map_or("?", |c| c.name.as_str())
    };
    let mut parts: Vec<String> = tests
        .iter()
        .map(|t| {
            let (op, c) = match t.op {
                Op::IsClass(c) => ("isclass", c),
                Op::InstanceOf(c) => ("instanceof", c),
                _ => ("?", 0),
            };
            if t.expect {
                format!("{op} {}", name(c))
            } else {
                format!("not {op} {}", name(c))
            }
        })
        .collect();
    // The positive test reads best first.
    parts.rotate_right(1);
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TREE: &str = "\
.class A
.end
.class B : A
.end
.class C : B
.end
.class D : C
.end
.class E : A
.end
.method A.m(this)
  push 1
  ret
.end
.method C.m(this)
  push 3
  ret
.end
.method D.m(this)
  push 4
  ret
.end
.method main()
  push 0
  ret
.end
";

    #[test]
    fn method_guards_exclude_the_overriding_subtrees() {
        let m = vm::verify::assemble("t.bc", TREE).unwrap();
        let sel = 0;
        // A.m runs for A, B, E; C overrides (and D below it again).
        assert_eq!(overriding_subclasses(&m, 0, sel), [2]);
        let (callee, tests) = tests_for(&m, Target::Method { method: 0 }, sel).unwrap();
        assert_eq!(callee, 0);
        assert_eq!(describe(&m, &tests), "instanceof A, not instanceof C");
        // C.m runs for C only (D overrides).
        let (_, tests) = tests_for(&m, Target::Method { method: 1 }, sel).unwrap();
        assert_eq!(describe(&m, &tests), "instanceof C, not instanceof D");
        // D has no subclasses: exact.
        let (_, tests) = tests_for(&m, Target::Method { method: 2 }, sel).unwrap();
        assert_eq!(describe(&m, &tests), "isclass D");
    }

    #[test]
    fn class_guards() {
        let m = vm::verify::assemble("t.bc", TREE).unwrap();
        let (callee, tests) = tests_for(&m, Target::guarded(1), 0).unwrap();
        assert_eq!((callee, describe(&m, &tests).as_str()), (0, "isclass B"));
        let sub = |c| Target::Guarded {
            class: c,
            guard: Guard::Subclasses,
        };
        assert_eq!(tests_for(&m, sub(1), 0), Err(Refusal::Overridden { by: 2 }));
        let (callee, tests) = tests_for(&m, sub(4), 0).unwrap();
        assert_eq!((callee, describe(&m, &tests).as_str()), (0, "instanceof E"));
    }
}
