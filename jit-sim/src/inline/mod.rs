//! A bytecode-to-bytecode inliner: the mechanism half of profile-directed
//! inlining (Arnold & Grove 2005, sections 5.1-5.2: the Jikes RVM and J9
//! inliners; section 6.3: what better inlining decisions buy).
//!
//! A *policy* decides which call sites to inline; this module carries the
//! decisions out on a [`Module`] and returns a new, ordinary module: it
//! passes the verifier and prints exactly what the original prints. The
//! policy gets one [`Outcome`] per site it asked for (and per copy of that
//! site in inlined code), inlined or refused with a [`Refusal`] saying why,
//! so that it can print a log in the spirit of HotSpot's `PrintInlining`
//! ([`format_outcomes`]).
//!
//! What an inlined call becomes (see [`expand`] for the details):
//!
//! - **static** `call m`: the arguments are stored from the operand stack
//!   into fresh locals of the caller (the last argument is on top, so it is
//!   stored first), the callee's `.locals` that it may read before writing
//!   are reset to `0` (a callee's locals start as 0 on every call; see
//!   [`locals`]), then the callee's code follows with
//!   its locals renamed, each `ret` turned into a jump to the continuation
//!   (after dropping whatever the callee left below its return value, with
//!   `swap; pop`), so the return value is left on the stack exactly where
//!   `call` would have pushed it;
//! - **guarded virtual** `callvirt m` for a class C: the arguments are
//!   stored, then `dup; isclass C; jz next` tests the receiver: on the fast
//!   path the receiver is stored and the body of the method C's objects run
//!   follows; on the slow path the arguments are loaded back and the
//!   original `callvirt` runs. `isclass` tests the exact class, so a
//!   subclass of C takes the slow path even if it does not override the
//!   method. [`Guard::Subclasses`] uses `instanceof C` instead, which is
//!   only sound when no subclass of C overrides the method (class hierarchy
//!   analysis over the whole program, which is closed: no class can be
//!   loaded later); the inliner checks this and refuses the decision
//!   otherwise. [`Target::Method`] names the method instead of a class, as
//!   a profile does, and guards for every class that runs it (see
//!   [`guard`]). Several targets at one site give a chain of tests.
//! - **exceptions**: the callee's `.catch` ranges are kept, remapped onto
//!   the inlined copy and put *before* the caller's own ranges, so a throw
//!   inside the copy tries the callee's handlers first, then the caller's,
//!   as the original unwinding did; the caller's ranges that covered the
//!   call cover the whole copy. A handler starts with an empty operand stack
//!   holding the thrown value, which is right for the callee's own frame but
//!   would, in the caller's frame, throw away the caller's values below the
//!   arguments: where a callee with `.catch` ranges is inlined with values
//!   under its arguments, those values are first stored into fresh locals
//!   (*spilled*) and loaded back under the result at the continuation, as
//!   a JIT spills live values around code that may clobber them.
//! - **nesting**: a decision names a call site of the original program and
//!   applies wherever that code ends up, so the call sites inside an inlined
//!   callee are inlined in turn, up to [`Budget::max_depth`] levels (which
//!   also stops recursive inlining) and while the method stays within
//!   [`Budget::max_method_size`].

pub mod annotate;
pub mod expand;
pub mod guard;
pub mod locals;

use std::collections::HashMap;
use std::fmt;

use vm::diag::Diagnostic;
use vm::module::{ClassId, MethodId, Module, Op};
use vm::opcode::Opcode;

/// A call instruction of the original module: the method it is in and its
/// index in that method's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallSite {
    /// The method containing the call.
    pub method: MethodId,
    /// The index of the `call` or `callvirt` in its code.
    pub index: u32,
}

/// How a guarded inline tests the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Guard {
    /// `isclass C`: the receiver's class is exactly C. Always sound.
    ExactClass,
    /// `instanceof C`: C or any subclass. Sound only if no subclass of C
    /// overrides the method; refused otherwise.
    Subclasses,
}

/// What to inline at a call site.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The static callee of a `call`.
    Static,
    /// The method a receiver of `class` runs at a `callvirt`, behind a
    /// guard on the receiver's class.
    Guarded {
        /// The receiver class the inlined code is for.
        class: ClassId,
        /// The receiver test.
        guard: Guard,
    },
    /// A virtual method at a `callvirt` of its selector, behind a guard
    /// that holds for exactly the receiver classes that run it.
    Method {
        /// The virtual method.
        method: MethodId,
    },
}

impl Target {
    /// A guarded inline with the exact-class test.
    pub fn guarded(class: ClassId) -> Target {
        Target::Guarded {
            class,
            guard: Guard::ExactClass,
        }
    }
}

/// One decision of a policy: inline `target` at `site`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decision {
    /// The call site in the original module.
    pub site: CallSite,
    /// What to inline there.
    pub target: Target,
}

/// Limits on how far inlining goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Inline levels: 1 inlines only the calls written in a method itself,
    /// 2 also the calls inside those inlined callees, and so on. Jikes RVM
    /// shrinks its budget past depth 5.
    pub max_depth: u32,
    /// Largest callee, in instructions, that may be inlined.
    pub max_callee_size: usize,
    /// Largest a method may grow to, in instructions, by inlining. (Capped
    /// at [`HARD_MAX_METHOD_SIZE`].)
    pub max_method_size: usize,
}

/// No method grows beyond this many instructions whatever the budget says.
pub const HARD_MAX_METHOD_SIZE: usize = 1 << 20;

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_depth: 5,
            max_callee_size: 500,
            max_method_size: 10_000,
        }
    }
}

/// Why a decision was not carried out at one site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The call is in unreachable code.
    Unreachable,
    /// The site is deeper than [`Budget::max_depth`].
    TooDeep {
        /// The site's inline depth.
        depth: u32,
        /// The budget.
        max: u32,
    },
    /// As [`Refusal::TooDeep`], and the callee is already being inlined
    /// on this path: recursion.
    RecursiveTooDeep {
        /// The site's inline depth.
        depth: u32,
        /// The budget.
        max: u32,
    },
    /// The callee is larger than [`Budget::max_callee_size`].
    CalleeTooBig {
        /// Callee instructions.
        size: usize,
        /// The budget.
        max: usize,
    },
    /// Inlining would grow the method beyond [`Budget::max_method_size`].
    CallerTooBig {
        /// The size the method would have had.
        size: usize,
        /// The budget.
        max: usize,
    },
    /// The class has no method for the selector (a `callvirt` on it is a
    /// runtime error, best left to the slow path).
    NotUnderstood {
        /// The class.
        class: ClassId,
    },
    /// [`Guard::Subclasses`] was asked for but a subclass overrides the
    /// method, so `instanceof` would run the wrong code for it.
    Overridden {
        /// A subclass that overrides.
        by: ClassId,
    },
}

impl Refusal {
    /// A short reason, as in an inlining log.
    pub fn reason(&self, module: &Module) -> String {
        let class = |c: ClassId| {
            module
                .classes
                .get(c as usize)
                .map_or_else(|| format!("class #{c}"), |c| c.name.clone())
        };
        match self {
            Refusal::Unreachable => "unreachable call site".into(),
            Refusal::TooDeep { max, .. } => format!("inlining too deep (max {max})"),
            Refusal::RecursiveTooDeep { max, .. } => {
                format!("recursive inlining is too deep (max {max})")
            }
            Refusal::CalleeTooBig { size, max } => format!("too big ({size} > {max})"),
            Refusal::CallerTooBig { size, max } => {
                format!("caller would be too big ({size} > {max})")
            }
            Refusal::NotUnderstood { class: c } => {
                format!("{} has no such method", class(*c))
            }
            Refusal::Overridden { by } => {
                format!("instanceof guard unsound: {} overrides", class(*by))
            }
        }
    }
}

/// What happened at one site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Inlined (static call).
    Inlined,
    /// Inlined behind a guard on the receiver's class.
    GuardedInlined,
    /// Not inlined.
    Refused(Refusal),
}

/// The result of one decision at one place. A decision for a site in
/// method B applies to B's own code and to every copy of B inlined
/// elsewhere, so it can have several outcomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The method whose code now contains this site (possibly inside
    /// inlined code).
    pub root: MethodId,
    /// The chain of call sites from `root`'s own code down to this site:
    /// one element for a call written in `root`, more for a call inside
    /// inlined code. The last element is the site the decision named.
    pub path: Vec<CallSite>,
    /// Index in the outcome list of the inline this one is nested in.
    pub parent: Option<usize>,
    /// What was to be inlined.
    pub target: Target,
    /// The method that would run (None if the class has no such method).
    pub callee: Option<MethodId>,
    /// The receiver tests of a guarded inline (empty otherwise).
    pub guard: Vec<guard::Test>,
    /// The callee's size in instructions.
    pub callee_size: usize,
    /// Inlined or refused.
    pub status: Status,
    /// Where the inlined copy is in the root's new code: instruction
    /// indices `[start, end)`, from the argument stores (or the guard)
    /// to the copy's end; None if not inlined.
    pub code: Option<(u32, u32)>,
}

impl Outcome {
    /// The inline level: 1 for a call written in the method itself.
    pub fn depth(&self) -> usize {
        self.path.len()
    }

    /// The call site the decision named.
    pub fn site(&self) -> CallSite {
        *self.path.last().expect("a path is never empty")
    }

    /// Source line of the call instruction in the original module.
    pub fn line(&self, module: &Module) -> u32 {
        let s = self.site();
        module
            .methods
            .get(s.method as usize)
            .and_then(|m| m.code.get(s.index as usize))
            .map_or(0, |i| i.pos.line)
    }

    /// Was the call inlined?
    pub fn inlined(&self) -> bool {
        !matches!(self.status, Status::Refused(_))
    }
}

/// Why inlining could not be done at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InlineError {
    /// The module refers to something it does not have.
    Malformed(String),
    /// The module does not pass the verifier.
    Invalid(Vec<Diagnostic>),
    /// A decision names a method or instruction that does not exist.
    NoSuchSite(CallSite),
    /// A decision's target does not fit the instruction (`Static` needs a
    /// `call`, `Guarded` a `callvirt`).
    WrongInstruction {
        /// The site.
        site: CallSite,
        /// What is there.
        found: Opcode,
    },
    /// A guarded decision names a class that does not exist.
    NoSuchClass(ClassId),
    /// A [`Target::Method`] decision names something that is not a
    /// virtual method of the site's selector.
    WrongMethod {
        /// The site.
        site: CallSite,
        /// The method named.
        method: MethodId,
    },
    /// The same decision twice.
    Duplicate(Decision),
    /// The result did not pass the verifier: a bug in the inliner, reported
    /// rather than run.
    Rejected(Vec<Diagnostic>),
}

impl fmt::Display for InlineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InlineError::Malformed(m) => write!(f, "malformed module: {m}"),
            InlineError::Invalid(d) => write!(
                f,
                "the module does not verify: {}",
                d.first()
                    .map_or(String::new(), |d| format!("{}: {}", d.pos, d.message))
            ),
            InlineError::NoSuchSite(s) => {
                write!(f, "no call site: method #{} index {}", s.method, s.index)
            }
            InlineError::WrongInstruction { site, found } => write!(
                f,
                "method #{} index {} is `{}`, which does not fit the decision",
                site.method,
                site.index,
                found.mnemonic()
            ),
            InlineError::NoSuchClass(c) => write!(f, "no class #{c}"),
            InlineError::WrongMethod { site, method } => write!(
                f,
                "method #{method} is not a virtual method of the selector called at method #{} index {}",
                site.method, site.index
            ),
            InlineError::Duplicate(d) => write!(f, "decision given twice: {d:?}"),
            InlineError::Rejected(d) => write!(
                f,
                "internal error: the inlined program does not verify: {}",
                d.first()
                    .map_or(String::new(), |d| format!("{}: {}", d.pos, d.message))
            ),
        }
    }
}

impl std::error::Error for InlineError {}

/// The decisions for one site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SitePlan {
    Static,
    Guarded(Vec<Target>),
}

/// Carries out `decisions` on `module` within `budget`.
///
/// Every method is rewritten (a decision for a site in B also applies in
/// the copies of B inlined into other methods); methods keep their indices,
/// so the callees stay in the module for the calls that were not inlined.
/// Sites are expanded depth-first in code order. The result has been
/// verified.
pub fn inline(
    module: &Module,
    decisions: &[Decision],
    budget: &Budget,
) -> Result<(Module, Vec<Outcome>), InlineError> {
    validate(module)?;
    let mut original = module.clone();
    vm::verify::verify_module(&mut original).map_err(InlineError::Invalid)?;

    let mut plans: HashMap<CallSite, SitePlan> = HashMap::new();
    for d in decisions {
        let insn = original
            .methods
            .get(d.site.method as usize)
            .and_then(|m| m.code.get(d.site.index as usize))
            .ok_or(InlineError::NoSuchSite(d.site))?;
        let wrong = || InlineError::WrongInstruction {
            site: d.site,
            found: insn.op.opcode(),
        };
        match (d.target, insn.op) {
            (Target::Static, Op::Call(_)) => {
                if plans.insert(d.site, SitePlan::Static).is_some() {
                    return Err(InlineError::Duplicate(*d));
                }
            }
            (Target::Guarded { .. } | Target::Method { .. }, Op::CallVirt(sel)) => {
                match d.target {
                    Target::Guarded { class, .. } if class as usize >= original.classes.len() => {
                        return Err(InlineError::NoSuchClass(class));
                    }
                    Target::Method { method } => {
                        let ok = original
                            .methods
                            .get(method as usize)
                            .is_some_and(|m| m.class.is_some() && m.selector == Some(sel));
                        if !ok {
                            return Err(InlineError::WrongMethod {
                                site: d.site,
                                method,
                            });
                        }
                    }
                    _ => {}
                }
                let plan = plans
                    .entry(d.site)
                    .or_insert_with(|| SitePlan::Guarded(Vec::new()));
                let SitePlan::Guarded(list) = plan else {
                    return Err(wrong());
                };
                if list.contains(&d.target) {
                    return Err(InlineError::Duplicate(*d));
                }
                list.push(d.target);
            }
            _ => return Err(wrong()),
        }
    }

    let budget = Budget {
        max_method_size: budget.max_method_size.min(HARD_MAX_METHOD_SIZE),
        ..*budget
    };
    let mut result = original.clone();
    let mut outcomes = Vec::new();
    for id in 0..original.methods.len() {
        let (method, mut outs) = expand::expand_method(&original, id as MethodId, &plans, &budget);
        let offset = outcomes.len();
        for o in &mut outs {
            o.parent = o.parent.map(|p| p + offset);
        }
        outcomes.extend(outs);
        result.methods[id] = method;
    }
    vm::verify::verify_module(&mut result).map_err(InlineError::Rejected)?;
    Ok((result, outcomes))
}

/// Checks that every index in `module` is in range and the class
/// hierarchy is acyclic, so that nothing later can panic or loop.
pub fn validate(module: &Module) -> Result<(), InlineError> {
    let bad = |what: String| Err(InlineError::Malformed(what));
    let nclasses = module.classes.len();
    for (i, c) in module.classes.iter().enumerate() {
        if let Some(s) = c.superclass {
            if s as usize >= nclasses {
                return bad(format!("class {} has superclass #{s}", c.name));
            }
        }
        // Acyclic: the chain from i reaches a root within nclasses steps.
        let mut k = Some(i as ClassId);
        let mut steps = 0;
        while let Some(x) = k {
            steps += 1;
            if steps > nclasses {
                return bad(format!("class {} is on a cycle", c.name));
            }
            k = module.classes[x as usize].superclass;
        }
        let inherited = c
            .superclass
            .map_or(0, |s| module.classes[s as usize].nfields());
        if c.inherited_fields != inherited {
            return bad(format!(
                "class {} inherits {} field(s) but its superclass has {inherited}",
                c.name, c.inherited_fields
            ));
        }
    }
    if module.main as usize >= module.methods.len() {
        return bad("no main method".into());
    }
    for (mi, m) in module.methods.iter().enumerate() {
        let name = &m.name;
        if m.class.is_some_and(|c| c as usize >= nclasses) {
            return bad(format!("method {name} has an unknown class"));
        }
        match m.selector {
            Some(s) if s as usize >= module.selectors.len() => {
                return bad(format!("method {name} has an unknown selector"));
            }
            Some(s) if module.selectors[s as usize].arity != m.arity() => {
                return bad(format!("method {name} disagrees with its selector's arity"));
            }
            _ => {}
        }
        if m.class.is_some() != m.selector.is_some() {
            return bad(format!("method {name} is half virtual"));
        }
        let n = m.code.len() as u32;
        let nlocals = m.frame_locals();
        for c in &m.catches {
            if c.from > n || c.to > n || c.handler > n {
                return bad(format!("method {name} has a .catch out of range"));
            }
        }
        for (i, insn) in m.code.iter().enumerate() {
            let ok = match insn.op {
                Op::PushStr(s) => (s as usize) < module.strings.len(),
                Op::Load(l) | Op::Store(l) | Op::Inc(l, _) => l < nlocals,
                Op::GetGlobal(g) | Op::PutGlobal(g) | Op::AddGlobal(g) => {
                    (g as usize) < module.globals.len()
                }
                Op::Call(t) | Op::Spawn(t) => (t as usize) < module.methods.len(),
                Op::CallVirt(s) => (s as usize) < module.selectors.len(),
                Op::New(c) | Op::InstanceOf(c) | Op::IsClass(c) => (c as usize) < nclasses,
                Op::GetField(c, f) | Op::PutField(c, f) => module
                    .classes
                    .get(c as usize)
                    .is_some_and(|c| (f as usize) < c.nfields()),
                op => op.target().is_none_or(|t| t <= n),
            };
            if !ok {
                return bad(format!(
                    "method #{mi} {name}, instruction {i} ({:?}) refers to nothing",
                    insn.op
                ));
            }
        }
    }
    Ok(())
}

/// The call site a profile names: the `call` or `callvirt` on source line
/// `line` of the method profiles call `method` (`fib`, `Shape.area`).
/// Profiles name call sites by line (docs/LANGUAGE.md "Profiles"); a line holds at most
/// one instruction.
pub fn site_at_line(module: &Module, method: &str, line: u32) -> Option<CallSite> {
    site_at_line_of(module, module.method_by_display_name(method)?, line)
}

/// [`site_at_line`] for a method given by id.
pub fn site_at_line_of(module: &Module, id: MethodId, line: u32) -> Option<CallSite> {
    let index = module
        .methods
        .get(id as usize)?
        .code
        .iter()
        .position(|i| i.pos.line == line && matches!(i.op, Op::Call(_) | Op::CallVirt(_)))?;
    Some(CallSite {
        method: id,
        index: index as u32,
    })
}

/// Every `call` and `callvirt` of the module, in method and code order.
pub fn call_sites(module: &Module) -> Vec<CallSite> {
    let mut out = Vec::new();
    for (mi, m) in module.methods.iter().enumerate() {
        for (i, insn) in m.code.iter().enumerate() {
            if matches!(insn.op, Op::Call(_) | Op::CallVirt(_)) {
                out.push(CallSite {
                    method: mi as MethodId,
                    index: i as u32,
                });
            }
        }
    }
    out
}

/// Formats outcomes as an inlining log in the spirit of HotSpot's
/// `-XX:+PrintInlining`: per root method a header, then one line per site,
/// `@ LINE Callee (N insns)   reason`, indented two spaces per level.
pub fn format_outcomes(module: &Module, outcomes: &[Outcome]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let mut last_root = None;
    for o in outcomes {
        if last_root != Some(o.root) {
            last_root = Some(o.root);
            let name = module
                .methods
                .get(o.root as usize)
                .map_or_else(|| format!("#{}", o.root), |m| m.display_name(module));
            let _ = writeln!(out, "{name}:");
        }
        let callee = o
            .callee
            .and_then(|c| module.methods.get(c as usize))
            .map_or_else(|| "?".to_string(), |m| m.display_name(module));
        let reason = match &o.status {
            Status::Inlined => "inline".to_string(),
            Status::GuardedInlined => {
                format!("guarded inline ({})", guard::describe(module, &o.guard))
            }
            Status::Refused(r) => r.reason(module),
        };
        let _ = writeln!(
            out,
            "{:indent$}@ {} {} ({} insns)   {}",
            "",
            o.line(module),
            callee,
            o.callee_size,
            reason,
            indent = 2 * o.depth()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "\
.class A
.end
.class B : A
.end
.method A.f(this)
  push 1
  ret
.end
.method g()
  push 2
  ret
.end
.method main()
  new B
  callvirt f
  call g
  add
  print
  push 0
  ret
.end
";

    fn module() -> Module {
        vm::verify::assemble("t.bc", PROGRAM).unwrap()
    }

    #[test]
    fn validate_accepts_assembled_programs_and_rejects_dangling_indices() {
        let m = module();
        assert_eq!(validate(&m), Ok(()));
        let mut bad = m.clone();
        bad.classes[1].superclass = Some(1);
        assert!(matches!(validate(&bad), Err(InlineError::Malformed(_))));
        let mut bad = m.clone();
        bad.classes[0].superclass = Some(9);
        assert!(matches!(validate(&bad), Err(InlineError::Malformed(_))));
        let mut bad = m.clone();
        bad.methods[2].code[1].op = Op::CallVirt(4);
        assert!(matches!(validate(&bad), Err(InlineError::Malformed(_))));
        let mut bad = m.clone();
        bad.methods[0].selector = None;
        assert!(matches!(validate(&bad), Err(InlineError::Malformed(_))));
        let mut bad = m;
        bad.main = 17;
        assert!(matches!(validate(&bad), Err(InlineError::Malformed(_))));
    }

    #[test]
    fn no_decisions_change_nothing_but_verify() {
        let m = module();
        let (out, outcomes) = inline(&m, &[], &Budget::default()).unwrap();
        assert!(outcomes.is_empty());
        for (a, b) in m.methods.iter().zip(&out.methods) {
            assert_eq!(a.code, b.code);
            assert_eq!(a.locals, b.locals);
            assert_eq!(a.catches, b.catches);
        }
    }

    #[test]
    fn outcomes_name_sites_and_format_as_a_log() {
        let m = module();
        let d = [
            Decision {
                site: CallSite {
                    method: 2,
                    index: 1,
                },
                target: Target::guarded(1),
            },
            Decision {
                site: CallSite {
                    method: 2,
                    index: 2,
                },
                target: Target::Static,
            },
        ];
        let budget = Budget {
            max_callee_size: 1,
            ..Budget::default()
        };
        let (_, outcomes) = inline(&m, &d, &budget).unwrap();
        assert_eq!(outcomes.len(), 2);
        assert_eq!(outcomes[0].line(&m), 15);
        assert_eq!(outcomes[0].callee, Some(0));
        let log = format_outcomes(&m, &outcomes);
        assert_eq!(
            log,
            "main:\n  @ 15 A.f (2 insns)   too big (2 > 1)\n  @ 16 g (2 insns)   too big (2 > 1)\n"
        );
        let (_, outcomes) = inline(&m, &d, &Budget::default()).unwrap();
        let log = format_outcomes(&m, &outcomes);
        assert_eq!(
            log,
            "main:\n  @ 15 A.f (2 insns)   guarded inline (isclass B)\n  @ 16 g (2 insns)   inline\n"
        );
    }

    #[test]
    fn sites_are_found_by_profile_line() {
        let m = module();
        assert_eq!(
            site_at_line(&m, "main", 15),
            Some(CallSite {
                method: 2,
                index: 1
            })
        );
        assert_eq!(site_at_line(&m, "main", 14), None); // `new B`, not a call
        assert_eq!(site_at_line(&m, "A.f", 15), None);
        assert_eq!(site_at_line(&m, "nope", 15), None);
        let all = call_sites(&m);
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].index, 2);
    }

    #[test]
    fn reasons_read_like_an_inlining_log() {
        let m = module();
        let cases = [
            (Refusal::Unreachable, "unreachable call site"),
            (
                Refusal::RecursiveTooDeep { depth: 6, max: 5 },
                "recursive inlining is too deep (max 5)",
            ),
            (
                Refusal::TooDeep { depth: 6, max: 5 },
                "inlining too deep (max 5)",
            ),
            (Refusal::NotUnderstood { class: 1 }, "B has no such method"),
            (
                Refusal::Overridden { by: 1 },
                "instanceof guard unsound: B overrides",
            ),
        ];
        for (r, text) in cases {
            assert_eq!(r.reason(&m), text);
        }
    }
}
