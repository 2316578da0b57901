//! The task families and their requests, in three wordings with the same facts
//! (docs/microseg.md, "Families"). The repair family's request carries the faulty policy and
//! its report (`policy` holds them).

use super::forms::Form;
use super::world::{Shape, World};

/// One family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    RoleCluster,
    RoleLabel,
    Policy,
    Render,
    Repair,
    Incremental,
    Pipeline,
}

const L1: [Family; 3] = [Family::RoleCluster, Family::RoleLabel, Family::Policy];
const L23: [Family; 6] = [
    Family::RoleCluster,
    Family::RoleLabel,
    Family::Policy,
    Family::Render,
    Family::Repair,
    Family::Incremental,
];
const L4: [Family; 1] = [Family::Pipeline];

impl Family {
    pub fn of_level(level: u8) -> &'static [Family] {
        match level {
            1 => &L1,
            2 | 3 => &L23,
            _ => &L4,
        }
    }

    /// The family of an id's index: the index modulo the level's family count.
    pub fn of_index(level: u8, index: u64) -> Family {
        let families = Family::of_level(level);
        families[(index % families.len() as u64) as usize]
    }

    pub fn id(self) -> &'static str {
        match self {
            Family::RoleCluster => "role-cluster",
            Family::RoleLabel => "role-label",
            Family::Policy => "policy",
            Family::Render => "render",
            Family::Repair => "repair",
            Family::Incremental => "incremental",
            Family::Pipeline => "pipeline",
        }
    }

    pub fn shape(self) -> Shape {
        if self == Family::Incremental { Shape::Incremental } else { Shape::Split }
    }

    /// Whether the answer is a roles map (else a policy).
    pub fn roles(self) -> bool {
        matches!(self, Family::RoleCluster | Family::RoleLabel)
    }

    /// Whether the family asks for a provider form (drawn unless the `r` knob fixes it).
    pub fn rendered(self) -> bool {
        matches!(self, Family::Render | Family::Pipeline)
    }

    /// The answer's `type` when the answer is in `form`.
    pub fn answer_type(self, form: Form) -> &'static str {
        if self.roles() { "roles" } else { form.answer_type() }
    }
}

/// Every role name of the tenant, sorted.
pub fn names(w: &World) -> Vec<String> {
    let mut n: Vec<String> = w.tenant.roles.iter().map(|r| r.name.clone()).collect();
    n.sort();
    n
}

/// The request of a family in wording `w` (0..3), its answer in `form`; `policy` is the w1
/// policy's JSON for the incremental family.
pub fn question(f: Family, world: &World, wording: usize, policy: &str, form: Form) -> String {
    let names = names(world).join(", ");
    let test = world.windows.last().expect("test");
    let m = test.len_min;
    let rform = form.phrase();
    let head = match (f, wording) {
        (Family::RoleCluster, 0) => {
            "Group every tenant VM (address in 10.0.0.0/8) seen in the logs by role; names are free.".to_string()
        }
        (Family::RoleCluster, 1) => "Using the flow logs, cluster the tenant's VMs (addresses in 10.0.0.0/8) by the role \
they play; any cluster names will do."
            .to_string(),
        (Family::RoleCluster, _) => {
            "Partition every VM of the tenant (10.0.0.0/8) that appears in the logs into roles; you choose the names."
                .to_string()
        }
        (Family::RoleLabel, 0) => {
            format!("Give every untagged tenant VM one of these role names: {names}. Tagged VMs keep their tags.")
        }
        (Family::RoleLabel, 1) => format!(
            "Label each tenant VM that has no role tag with one of the role names {names}; keep the tags of tagged VMs."
        ),
        (Family::RoleLabel, _) => format!(
            "Every VM without a role tag needs one role name out of {names}. Do not change a VM's existing tag."
        ),
        (Family::Policy, 0) => format!(
            "Write a least-privilege micro-segmentation policy: groups of VMs by role, allow rules for the traffic the \
roles need, default deny. It will be enforced on the next {m} minutes, including VMs deployed later in existing roles."
        ),
        (Family::Policy, 1) => format!(
            "Derive a default-deny micro-segmentation policy with least privilege: group VMs by role and allow only the \
traffic the roles need. It applies to the next {m} minutes, and VMs added later in existing roles must keep working."
        ),
        (Family::Policy, _) => format!(
            "Produce role-based allow rules over VM groups, deny everything else, and grant no more than the roles need; \
the policy is enforced for the following {m} minutes, including on VMs deployed later in existing roles."
        ),
        (Family::Render, _) => {
            let policy = question(Family::Policy, world, wording, policy, form);
            let policy = policy.split(" Return {").next().unwrap_or_default();
            format!("{policy} Express it as {rform}.{}", form.schema())
        }
        (Family::Repair, 0) => format!(
            "This policy was correct until faults were injected; find and fix them with the commands. The episode \
ends when the report says No findings., on done, or after the turn limit.\n{policy}"
        ),
        (Family::Repair, 1) => format!(
            "Faults were injected into this once-correct policy. Repair it with the commands; the episode stops at \
No findings., at done, or at the turn limit.\n{policy}"
        ),
        (Family::Repair, _) => format!(
            "Someone broke this policy, which used to be correct. Use the commands to repair it; the episode is over \
once the report reads No findings., after done, or at the turn limit.\n{policy}"
        ),
        (Family::Incremental, 0) => format!(
            "Here is the policy that was correct at the end of w1: {policy}. VMs were added and removed between w1 and w2. \
Update it for the VMs present at the end of w2."
        ),
        (Family::Incremental, 1) => format!(
            "The policy below was correct at the end of w1: {policy}. Between w1 and w2, VMs were added and removed. \
Bring it up to date for the VMs running at the end of w2."
        ),
        (Family::Incremental, _) => format!(
            "At the end of w1 this policy was correct: {policy}. Some VMs were created and some deleted between w1 and \
w2; revise it so that it fits the VMs present at the end of w2."
        ),
        (Family::Pipeline, 0) => {
            format!("Infer the roles, then write the policy as {rform}; new VMs in existing roles will appear.")
        }
        (Family::Pipeline, 1) => {
            format!("Work out the roles, then express the policy as {rform}; expect new VMs in existing roles.")
        }
        (Family::Pipeline, _) => format!(
            "First infer the roles from the logs, then give the policy as {rform}; VMs of existing roles will be added later."
        ),
    };
    if f == Family::Repair {
        return head;
    }
    let ret = match (f.roles(), form) {
        (true, _) => " Return {'type': 'roles', 'data': {address: role name}}.".to_string(),
        (false, Form::Np) => " Return {'type': 'policy', 'data': the policy}.".to_string(),
        (false, r) => {
            let data = if r == Form::K8s { "the list of NetworkPolicy objects" } else { "the document" };
            format!(" Return {{'type': '{}', 'data': {data}}}.", r.name())
        }
    };
    let schema = if f == Family::Pipeline { form.schema() } else { "" };
    format!("{head}{schema}{ret}")
}
