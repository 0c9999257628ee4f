//! Rewriting one method with its call sites expanded (Arnold & Grove 2005,
//! section 5.1: the inliner substitutes a callee's body for the call, and
//! guards a virtual call's inlined body with a test on the receiver).
//!
//! An [`Emitter`] builds the new code of one *root* method. Code is emitted
//! body by body: the root's own code, and recursively the code of each
//! callee inlined into it. Jumps name *labels* that are bound to positions
//! as the code is laid out and patched at the end, so a body's forward
//! jumps, its `.catch` ranges and the continuation of an inlined call need
//! no second pass. Every original instruction of a body gets a label bound
//! where its expansion starts, so
//!
//! - a jump to a call instruction lands on the code that stores its
//!   arguments;
//! - a `.catch` range `[from, to)` of the caller that contained the call
//!   contains the whole inlined copy, and one that did not, does not.
//!
//! The operand stack: the verifier gives each instruction its stack height
//! `h`. In an inlined body the height is `base + h`, where `base` is the
//! caller's height below the call's arguments. At a `ret` with height `h`
//! the callee leaves `h - 1` values below its result; `swap; pop` drops
//! them one by one, so the continuation is reached with `base + 1` values,
//! as after the `call`. A `.catch` handler starts with just the thrown
//! value (height 1), which is `base + 1` only if `base` is 0. So where a
//! callee with handlers is inlined with `base > 0`, the `base` values are
//! first *spilled* into fresh locals (`f_spill0`, ...), the copy runs on an
//! empty stack, and at the continuation the result is stored
//! (`f_result`), the spilled values loaded back and the result on top of
//! them. Values spilled this way may belong to several enclosing copies;
//! they are just values on the operand stack. A guarded inline spills
//! after storing the receiver, tests the receiver with `load` instead of
//! `dup`, and loads the spilled values back before the slow path's
//! `callvirt`.
//!
//! Growth is checked before and after each expansion against
//! [`Budget::max_method_size`]: before, with the callee's size plus every
//! original instruction still to be emitted; after, with the real size. An
//! expansion that turns out too big is rolled back (every vector the emitter
//! appends to is truncated to a checkpoint) and the call is kept.

use std::collections::{HashMap, HashSet};

use vm::diag::Pos;
use vm::module::{Catch, Insn, Method, MethodId, Module, Op};

use super::guard::{self, Test};
use super::{Budget, CallSite, Outcome, Refusal, SitePlan, Status, Target};

type Label = usize;

/// A `.catch` range in labels.
#[derive(Clone, Copy, Debug)]
struct CatchL {
    from: Label,
    to: Label,
    handler: Label,
}

/// How a body's `ret` is emitted.
#[derive(Clone, Copy)]
enum RetMode {
    /// The root's own `ret`: kept.
    Keep,
    /// An inlined body's `ret`: drop the values below the result, jump here.
    JumpTo(Label),
}

/// Where a body is emitted.
struct Frame<'p> {
    /// Local index in the callee → local index in the root.
    locals: Vec<u32>,
    /// Stack height below the body's own operand stack.
    base: u32,
    /// Sites from the root's code to this body (empty for the root).
    path: &'p [CallSite],
    /// Methods whose bodies enclose this one, root first, this one last.
    methods: &'p [MethodId],
    /// Outcome of the inline that produced this body.
    parent: Option<usize>,
    ret: RetMode,
}

/// A call site being expanded, where it is.
#[derive(Clone, Copy)]
struct At<'f, 'p> {
    site: CallSite,
    /// The site's stack height in its body (None: unreachable).
    height: Option<u32>,
    frame: &'f Frame<'p>,
    /// Position of the call, given to the instructions that replace it.
    pos: Pos,
}

/// Lengths of everything the emitter appends to.
#[derive(Clone, Copy)]
struct Checkpoint {
    code: usize,
    fixups: usize,
    labels: usize,
    names: usize,
    locals: usize,
    outcomes: usize,
}

struct Emitter<'a> {
    module: &'a Module,
    plans: &'a HashMap<CallSite, SitePlan>,
    budget: &'a Budget,
    code: Vec<Insn>,
    /// Position of each label, once bound.
    labels: Vec<Option<u32>>,
    /// Jumps to patch: (instruction index, label).
    fixups: Vec<(usize, Label)>,
    /// Label names for the printed program, and the names taken.
    names: Vec<(String, Label)>,
    label_names: HashSet<String>,
    /// Names of all locals of the root (parameters first).
    locals: Vec<String>,
    local_names: HashSet<String>,
    outcomes: Vec<Outcome>,
    /// Original instructions of open bodies not yet emitted.
    pending: usize,
}

/// Rewrites method `id` of `module` with the planned sites expanded.
/// Returns the new method (not yet verified) and the outcomes, whose
/// `parent` indices count from 0 within this method.
pub(crate) fn expand_method(
    module: &Module,
    id: MethodId,
    plans: &HashMap<CallSite, SitePlan>,
    budget: &Budget,
) -> (Method, Vec<Outcome>) {
    let m = &module.methods[id as usize];
    let mut e = Emitter {
        module,
        plans,
        budget,
        code: Vec::with_capacity(m.code.len()),
        labels: Vec::new(),
        fixups: Vec::new(),
        names: Vec::new(),
        label_names: HashSet::new(),
        locals: Vec::new(),
        local_names: HashSet::new(),
        outcomes: Vec::new(),
        pending: 0,
    };
    let mut root_locals = Vec::new();
    for name in m.params.iter().chain(&m.locals) {
        root_locals.push(e.fresh_local(name));
    }
    let frame = Frame {
        locals: root_locals,
        base: 0,
        path: &[],
        methods: &[id],
        parent: None,
        ret: RetMode::Keep,
    };
    let catches = e.body(id, &frame, "");
    let resolve = |l: Label, labels: &[Option<u32>]| labels[l].expect("every label is bound");
    for &(at, l) in &e.fixups {
        let t = resolve(l, &e.labels);
        e.code[at].op = e.code[at].op.with_target(t);
    }
    let method = Method {
        locals: e.locals[m.params.len()..].to_vec(),
        catches: catches
            .iter()
            .map(|c| Catch {
                from: resolve(c.from, &e.labels),
                to: resolve(c.to, &e.labels),
                handler: resolve(c.handler, &e.labels),
            })
            .collect(),
        labels: e
            .names
            .iter()
            .map(|(n, l)| (n.clone(), resolve(*l, &e.labels)))
            .collect(),
        code: e.code,
        max_stack: 0,
        heights: Vec::new(),
        ..m.clone()
    };
    (method, e.outcomes)
}

impl Emitter<'_> {
    fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            code: self.code.len(),
            fixups: self.fixups.len(),
            labels: self.labels.len(),
            names: self.names.len(),
            locals: self.locals.len(),
            outcomes: self.outcomes.len(),
        }
    }

    /// Undoes everything emitted since `cp`; outcomes too unless
    /// `keep_outcomes`.
    fn rollback(&mut self, cp: Checkpoint, keep_outcomes: bool) {
        self.code.truncate(cp.code);
        self.fixups.truncate(cp.fixups);
        self.labels.truncate(cp.labels);
        for (n, _) in self.names.drain(cp.names..) {
            self.label_names.remove(&n);
        }
        for n in self.locals.drain(cp.locals..) {
            self.local_names.remove(&n);
        }
        if !keep_outcomes {
            self.outcomes.truncate(cp.outcomes);
        }
    }

    fn new_label(&mut self) -> Label {
        self.labels.push(None);
        self.labels.len() - 1
    }

    /// A new label with a name in the printed program.
    fn named_label(&mut self, name: &str) -> Label {
        let l = self.new_label();
        let name = unique(name, &self.label_names);
        self.label_names.insert(name.clone());
        self.names.push((name, l));
        l
    }

    fn bind(&mut self, l: Label) {
        self.labels[l] = Some(self.code.len() as u32);
    }

    fn fresh_local(&mut self, name: &str) -> u32 {
        let name = unique(name, &self.local_names);
        self.local_names.insert(name.clone());
        self.locals.push(name);
        (self.locals.len() - 1) as u32
    }

    fn emit(&mut self, op: Op, pos: Pos) {
        self.code.push(Insn { op, pos });
    }

    fn jump(&mut self, op: Op, to: Label, pos: Pos) {
        self.fixups.push((self.code.len(), to));
        self.emit(op.with_target(0), pos);
    }

    /// Emits the body of `id` in `frame`; returns its `.catch` ranges,
    /// those of bodies inlined into it first.
    fn body(&mut self, id: MethodId, frame: &Frame<'_>, prefix: &str) -> Vec<CatchL> {
        let module = self.module;
        let m = &module.methods[id as usize];
        let n = m.code.len();
        // One label per original instruction and one for the end; the
        // method's own label names on those (prefixed in inlined copies).
        let at: Vec<Label> = (0..=n).map(|_| self.new_label()).collect();
        for (name, i) in &m.labels {
            if let Some(&l) = at.get(*i as usize) {
                let name = unique(&format!("{prefix}{name}"), &self.label_names);
                self.label_names.insert(name.clone());
                self.names.push((name, l));
            }
        }
        let mut inner: Vec<CatchL> = Vec::new();
        self.pending += n;
        for (i, insn) in m.code.iter().enumerate() {
            self.pending -= 1;
            self.bind(at[i]);
            let pos = insn.pos;
            let height = m.heights.get(i).copied().flatten();
            let at_site = At {
                site: CallSite {
                    method: id,
                    index: i as u32,
                },
                height,
                frame,
                pos,
            };
            let site = at_site.site;
            match insn.op {
                Op::Load(l) => self.emit(Op::Load(frame.locals[l as usize]), pos),
                Op::Store(l) => self.emit(Op::Store(frame.locals[l as usize]), pos),
                Op::Inc(l, k) => self.emit(Op::Inc(frame.locals[l as usize], k), pos),
                Op::Ret => match frame.ret {
                    RetMode::Keep => self.emit(Op::Ret, pos),
                    RetMode::JumpTo(cont) => {
                        for _ in 1..height.unwrap_or(1) {
                            self.emit(Op::Swap, pos);
                            self.emit(Op::Pop, pos);
                        }
                        self.jump(Op::Jmp(0), cont, pos);
                    }
                },
                op if op.target().is_some() => {
                    let t = op.target().unwrap_or(0) as usize;
                    self.jump(op, at[t.min(n)], pos);
                }
                Op::Call(callee) if self.plans.get(&site) == Some(&SitePlan::Static) => {
                    let done = self.inline_static(at_site, callee, &mut inner);
                    if !done {
                        self.emit(insn.op, pos);
                    }
                }
                Op::CallVirt(sel) => match self.plans.get(&site) {
                    Some(SitePlan::Guarded(targets)) => {
                        let done = self.inline_guarded(at_site, sel, targets, &mut inner);
                        if !done {
                            self.emit(insn.op, pos);
                        }
                    }
                    _ => self.emit(insn.op, pos),
                },
                op => self.emit(op, pos),
            }
        }
        self.bind(at[n]);
        inner.extend(m.catches.iter().map(|c| CatchL {
            from: at[(c.from as usize).min(n)],
            to: at[(c.to as usize).min(n)],
            handler: at[(c.handler as usize).min(n)],
        }));
        inner
    }

    /// The checks every inline shares. `height` is the site's height in
    /// its body.
    fn precheck(
        &self,
        callee: MethodId,
        height: Option<u32>,
        frame: &Frame<'_>,
    ) -> Result<u32, Refusal> {
        let m = &self.module.methods[callee as usize];
        let Some(h) = height else {
            return Err(Refusal::Unreachable);
        };
        let depth = frame.path.len() as u32 + 1;
        let max = self.budget.max_depth;
        if depth > max {
            return Err(if frame.methods.contains(&callee) {
                Refusal::RecursiveTooDeep { depth, max }
            } else {
                Refusal::TooDeep { depth, max }
            });
        }
        let size = m.code.len();
        if size > self.budget.max_callee_size {
            return Err(Refusal::CalleeTooBig {
                size,
                max: self.budget.max_callee_size,
            });
        }
        let below = frame.base + h.saturating_sub(m.arity());
        let projected = self.code.len() + self.pending + size;
        if projected > self.budget.max_method_size {
            return Err(Refusal::CallerTooBig {
                size: projected,
                max: self.budget.max_method_size,
            });
        }
        Ok(below)
    }

    fn outcome(
        &mut self,
        site: CallSite,
        frame: &Frame<'_>,
        target: Target,
        callee: Option<MethodId>,
        status: Status,
    ) -> usize {
        let mut path = frame.path.to_vec();
        path.push(site);
        let callee_size = callee.map_or(0, |c| self.module.methods[c as usize].code.len());
        self.outcomes.push(Outcome {
            root: frame.methods[0],
            path,
            parent: frame.parent,
            target,
            callee,
            guard: Vec::new(),
            callee_size,
            status,
            code: None,
        });
        self.outcomes.len() - 1
    }

    /// After an expansion: refuses it (rolling back) if the method grew
    /// too big.
    fn too_big_after(&self) -> Option<Refusal> {
        let size = self.code.len() + self.pending;
        (size > self.budget.max_method_size).then_some(Refusal::CallerTooBig {
            size,
            max: self.budget.max_method_size,
        })
    }

    /// Inlines the body of `callee` with its parameters already in
    /// `param_locals` and the receiver (if any) stored; resets the
    /// `.locals` it may read before writing to 0 first. Returns the body's catches.
    fn inline_body(
        &mut self,
        at: At<'_, '_>,
        callee: MethodId,
        param_locals: &[u32],
        below: u32,
        outcome: usize,
        cont: Label,
    ) -> Vec<CatchL> {
        let At {
            site, frame, pos, ..
        } = at;
        let module = self.module;
        let cm = &module.methods[callee as usize];
        let mut locals = param_locals.to_vec();
        let reset = super::locals::needs_reset(cm);
        for (name, reset) in cm.locals.iter().zip(reset) {
            let l = self.fresh_local(&format!("{}_{name}", cm.name));
            if reset {
                self.emit(Op::PushInt(0), pos);
                self.emit(Op::Store(l), pos);
            }
            locals.push(l);
        }
        let mut path = frame.path.to_vec();
        path.push(site);
        let mut methods = frame.methods.to_vec();
        methods.push(callee);
        let inner = Frame {
            locals,
            base: below,
            path: &path,
            methods: &methods,
            parent: Some(outcome),
            ret: RetMode::JumpTo(cont),
        };
        self.body(callee, &inner, &format!("{}_", cm.name))
    }

    /// Expands a static call; false if refused (the caller emits the call).
    fn inline_static(
        &mut self,
        at: At<'_, '_>,
        callee: MethodId,
        catches: &mut Vec<CatchL>,
    ) -> bool {
        let At {
            site,
            height,
            frame,
            pos,
        } = at;
        let below = match self.precheck(callee, height, frame) {
            Ok(b) => b,
            Err(r) => {
                self.outcome(
                    site,
                    frame,
                    Target::Static,
                    Some(callee),
                    Status::Refused(r),
                );
                return false;
            }
        };
        let cp = self.checkpoint();
        let start = self.code.len() as u32;
        let outcome = self.outcome(site, frame, Target::Static, Some(callee), Status::Inlined);
        let module = self.module;
        let cm = &module.methods[callee as usize];
        let params: Vec<u32> = cm
            .params
            .iter()
            .map(|p| self.fresh_local(&format!("{}_{p}", cm.name)))
            .collect();
        for &l in params.iter().rev() {
            self.emit(Op::Store(l), pos);
        }
        let spilled = if !cm.catches.is_empty() && below > 0 {
            self.spill(&cm.name, below, pos)
        } else {
            Vec::new()
        };
        let base = below - spilled.len() as u32;
        let cont = self.named_label(&format!("{}_done", cm.name));
        let body = self.inline_body(at, callee, &params, base, outcome, cont);
        // A final `jmp` to the continuation right after it is dropped.
        let last = self.code.len().wrapping_sub(1);
        if self.fixups.last() == Some(&(last, cont)) {
            self.fixups.pop();
            self.code.pop();
            // Labels bound after the dropped jump (the callee's end, where
            // its `.catch` ranges may stop) move back onto the continuation.
            let end = self.code.len() as u32;
            for p in self.labels[cp.labels..].iter_mut().flatten() {
                *p = (*p).min(end);
            }
        }
        self.bind(cont);
        if !spilled.is_empty() {
            self.unspill(&cm.name, &spilled, pos);
        }
        if let Some(r) = self.too_big_after() {
            self.rollback(cp, false);
            self.outcome(
                site,
                frame,
                Target::Static,
                Some(callee),
                Status::Refused(r),
            );
            return false;
        }
        self.outcomes[outcome].code = Some((start, self.code.len() as u32));
        catches.extend(body);
        true
    }

    /// Expands a `callvirt` with a guard per target class; false if every
    /// target was refused (the caller emits the `callvirt`).
    fn inline_guarded(
        &mut self,
        at: At<'_, '_>,
        sel: u32,
        targets: &[Target],
        catches: &mut Vec<CatchL>,
    ) -> bool {
        let At {
            site,
            height,
            frame,
            pos,
        } = at;
        let module = self.module;
        // Which targets survive the checks that need no code.
        let mut ok: Vec<(Target, Vec<Test>, MethodId, u32)> = Vec::new();
        for &target in targets {
            let (callee, tests) = match guard::tests_for(module, target, sel) {
                Ok(x) => x,
                Err(r) => {
                    let callee = match (target, &r) {
                        (Target::Guarded { class, .. }, Refusal::Overridden { .. }) => {
                            module.resolve_virtual(class, sel)
                        }
                        _ => None,
                    };
                    self.outcome(site, frame, target, callee, Status::Refused(r));
                    continue;
                }
            };
            match self.precheck(callee, height, frame) {
                Ok(below) => ok.push((target, tests, callee, below)),
                Err(r) => {
                    self.outcome(site, frame, target, Some(callee), Status::Refused(r));
                }
            }
        }
        if ok.is_empty() {
            return false;
        }
        let site_cp = self.checkpoint();
        let selector = &module.selectors[sel as usize];
        let first = &module.methods[ok[0].2 as usize];
        // The arguments go to locals shared by every target's copy (only
        // one copy runs per call) and by the slow path.
        let args: Vec<u32> = first
            .params
            .iter()
            .skip(1)
            .map(|p| self.fresh_local(&format!("{}_{p}", selector.name)))
            .collect();
        let recv_name = first.params.first().map_or("this", String::as_str);
        let recv = self.fresh_local(&format!("{}_{recv_name}", selector.name));
        let mut params = vec![recv];
        params.extend(&args);
        for &l in args.iter().rev() {
            self.emit(Op::Store(l), pos);
        }
        // A handler in a copy would empty the whole operand stack: if a
        // target has one, the values under the call wait in locals.
        let below = ok[0].3;
        let spill = below > 0
            && ok
                .iter()
                .any(|t| !module.methods[t.2 as usize].catches.is_empty());
        let spilled = if spill {
            self.emit(Op::Store(recv), pos);
            self.spill(&selector.name, below, pos)
        } else {
            Vec::new()
        };
        let base = below - spilled.len() as u32;
        let cont = self.named_label(&format!("{}_done", selector.name));
        // Where the copies' `ret`s go: the continuation, or the code that
        // puts the spilled values back under the result.
        let ret_to = if spill {
            self.named_label(&format!("{}_restore", selector.name))
        } else {
            cont
        };
        let mut any = false;
        let mut site_catches = Vec::new();
        for (target, tests, callee, _) in ok {
            let cp = self.checkpoint();
            let start = self.code.len() as u32;
            let outcome = self.outcome(site, frame, target, Some(callee), Status::GuardedInlined);
            self.outcomes[outcome].guard = tests.clone();
            let cname = match target {
                Target::Guarded { class, .. } => module.classes[class as usize].name.clone(),
                _ => module.methods[callee as usize]
                    .display_name(module)
                    .replace('.', "_"),
            };
            let next = self.named_label(&format!("{}_not_{cname}", selector.name));
            for t in &tests {
                self.emit(if spill { Op::Load(recv) } else { Op::Dup }, pos);
                self.emit(t.op, pos);
                let skip = if t.expect { Op::Jz(0) } else { Op::Jnz(0) };
                self.jump(skip, next, pos);
            }
            if !spill {
                self.emit(Op::Store(recv), pos);
            }
            let body = self.inline_body(at, callee, &params, base, outcome, ret_to);
            self.bind(next);
            if let Some(r) = self.too_big_after() {
                self.rollback(cp, false);
                self.outcome(site, frame, target, Some(callee), Status::Refused(r));
                continue;
            }
            self.outcomes[outcome].code = Some((start, self.code.len() as u32));
            any = true;
            site_catches.extend(body);
        }
        if !any {
            self.rollback(site_cp, true);
            return false;
        }
        // The slow path: the original call, arguments loaded back.
        for &l in spilled.iter().chain(spill.then_some(&recv)).chain(&args) {
            self.emit(Op::Load(l), pos);
        }
        self.emit(Op::CallVirt(sel), pos);
        if spill {
            self.jump(Op::Jmp(0), cont, pos);
            self.bind(ret_to);
            self.unspill(&selector.name, &spilled, pos);
        }
        self.bind(cont);
        catches.extend(site_catches);
        true
    }
}

impl Emitter<'_> {
    /// Stores the `count` values on the stack into fresh locals, the top
    /// one first; returns the locals bottom first.
    fn spill(&mut self, name: &str, count: u32, pos: Pos) -> Vec<u32> {
        let locals: Vec<u32> = (0..count)
            .map(|k| self.fresh_local(&format!("{name}_spill{k}")))
            .collect();
        for &l in locals.iter().rev() {
            self.emit(Op::Store(l), pos);
        }
        locals
    }

    /// Puts spilled values back under the result on top of the stack.
    fn unspill(&mut self, name: &str, spilled: &[u32], pos: Pos) {
        let result = self.fresh_local(&format!("{name}_result"));
        self.emit(Op::Store(result), pos);
        for &l in spilled {
            self.emit(Op::Load(l), pos);
        }
        self.emit(Op::Load(result), pos);
    }
}

/// `name`, or `name_2`, `name_3`, ... whichever is not in `taken`.
fn unique(name: &str, taken: &HashSet<String>) -> String {
    if !taken.contains(name) {
        return name.to_string();
    }
    (2..)
        .map(|k| format!("{name}_{k}"))
        .find(|n| !taken.contains(n))
        .expect("some suffix is free")
}

#[cfg(test)]
mod tests {
    use super::super::{inline, Budget, CallSite, Decision, Target};
    use vm::module::Module;

    fn module(src: &str) -> Module {
        vm::verify::assemble("t.bc", src).expect("test program verifies")
    }

    fn main_text(m: &Module, decisions: &[Decision], budget: &Budget) -> String {
        let (out, _) = inline(m, decisions, budget).expect("inlines");
        let text = vm::printer::print(&out).expect("prints");
        let start = text.find(".method main()").expect("main");
        text[start..].to_string()
    }

    fn at(method: u32, index: u32, target: Target) -> Decision {
        Decision {
            site: CallSite { method, index },
            target,
        }
    }

    #[test]
    fn static_inline_stores_arguments_and_falls_through() {
        let m = module(
            "\
.method sub(a, b)
  .locals t
  load a
  load b
  sub
  store t
  load t
  ret
.end
.method main()
  push 10
  push 3
  call sub
  print
  push 0
  ret
.end
",
        );
        let text = main_text(&m, &[at(1, 2, Target::Static)], &Budget::default());
        // b is on top of the stack, so it is stored first; the final `ret`
        // becomes a jump to the next instruction, which is dropped.
        assert_eq!(
            text,
            "\
.method main()
  .locals sub_a sub_b sub_t
  push 10
  push 3
  store sub_b
  store sub_a
  load sub_a
  load sub_b
  sub
  store sub_t
  load sub_t
sub_done:
  print
  push 0
  ret
.end
"
        );
    }

    #[test]
    fn early_returns_jump_to_the_continuation() {
        let m = module(
            "\
.method abs(x)
  load x
  push 0
  jge pos
  load x
  neg
  ret
pos:
  load x
  ret
.end
.method main()
  push -4
  call abs
  print
  push 0
  ret
.end
",
        );
        let text = main_text(&m, &[at(1, 1, Target::Static)], &Budget::default());
        assert_eq!(
            text,
            "\
.method main()
  .locals abs_x
  push -4
  store abs_x
  load abs_x
  push 0
  jge abs_pos
  load abs_x
  neg
  jmp abs_done
abs_pos:
  load abs_x
abs_done:
  print
  push 0
  ret
.end
"
        );
    }

    #[test]
    fn guarded_inline_tests_the_receiver_and_keeps_the_call_on_the_slow_path() {
        let m = module(
            "\
.class P
  .field x
.end
.method P.add(this, k)
  load this
  getfield P.x
  load k
  add
  ret
.end
.method main()
  new P
  push 5
  callvirt add
  print
  push 0
  ret
.end
",
        );
        let text = main_text(&m, &[at(1, 2, Target::guarded(0))], &Budget::default());
        assert_eq!(
            text,
            "\
.method main()
  .locals add_k add_this
  new P
  push 5
  store add_k
  dup
  isclass P
  jz add_not_P
  store add_this
  load add_this
  getfield P.x
  load add_k
  add
  jmp add_done
add_not_P:
  load add_k
  callvirt add
add_done:
  print
  push 0
  ret
.end
"
        );
    }

    #[test]
    fn a_jump_to_the_call_lands_on_the_argument_stores() {
        let m = module(
            "\
.method id(x)
  load x
  ret
.end
.method main()
  .locals i
  push 0
top:
  call id
  inc i 1
  load i
  push 3
  jlt top
  print
  push 0
  ret
.end
",
        );
        let text = main_text(&m, &[at(1, 1, Target::Static)], &Budget::default());
        assert!(text.contains("top:\n  store id_x\n"), "{text}");
    }

    #[test]
    fn labels_of_inlined_copies_do_not_clash() {
        let m = module(
            "\
.method f(x)
  load x
  jz zero
  push 1
  ret
zero:
  push 2
  ret
.end
.method main()
zero:
  push 0
  call f
  push 1
  call f
  add
  print
  push 0
  ret
.end
",
        );
        let text = main_text(
            &m,
            &[at(1, 1, Target::Static), at(1, 3, Target::Static)],
            &Budget::default(),
        );
        for l in ["zero:", "f_zero:", "f_zero_2:", "f_done:", "f_done_2:"] {
            assert_eq!(
                text.lines().filter(|x| *x == l).count(),
                1,
                "{l} in\n{text}"
            );
        }
        assert!(text.contains(".locals f_x f_x_2"), "{text}");
    }
}
