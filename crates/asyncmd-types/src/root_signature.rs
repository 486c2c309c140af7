//! Root signatures, version 1.1 (`D3D12_VERSIONED_ROOT_SIGNATURE_DESC`), and the checks D3D12's
//! serializer makes on them.

use crate::{SamplerDesc, StaticBorderColor};

/// The register class of a binding: D3D12's `b`, `t`, `u` and `s` registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegisterClass {
    /// A constant buffer view (`b`).
    Cbv,
    /// A shader resource view (`t`): read-only buffers and sampled textures.
    Srv,
    /// An unordered access view (`u`): read-write buffers and storage textures.
    Uav,
    /// A sampler (`s`).
    Sampler,
}

impl RegisterClass {
    /// The register letter.
    pub fn letter(self) -> char {
        match self {
            RegisterClass::Cbv => 'b',
            RegisterClass::Srv => 't',
            RegisterClass::Uav => 'u',
            RegisterClass::Sampler => 's',
        }
    }
}

/// The stages that see a root parameter (`D3D12_SHADER_VISIBILITY`). Compute shaders see only
/// `All` parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ShaderVisibility {
    /// Every stage.
    #[default]
    All,
    /// Vertex shaders.
    Vertex,
    /// Hull shaders.
    Hull,
    /// Domain shaders.
    Domain,
    /// Geometry shaders.
    Geometry,
    /// Pixel shaders.
    Pixel,
    /// Amplification shaders.
    Amplification,
    /// Mesh shaders.
    Mesh,
}

impl ShaderVisibility {
    /// Whether a stage could see parameters of both visibilities.
    pub fn overlaps(self, other: ShaderVisibility) -> bool {
        self == ShaderVisibility::All || other == ShaderVisibility::All || self == other
    }
}

bitflags::bitflags! {
    /// `D3D12_ROOT_DESCRIPTOR_FLAGS`: what the app promises about the data behind a root
    /// descriptor.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct RootDescriptorFlags: u32 {
        /// The data may change at any time before execution.
        const DATA_VOLATILE = 0x2;
        /// The data does not change while the descriptor is set during execution.
        const DATA_STATIC_WHILE_SET_AT_EXECUTE = 0x4;
        /// The data does not change once the descriptor is recorded.
        const DATA_STATIC = 0x8;
    }
}

bitflags::bitflags! {
    /// `D3D12_DESCRIPTOR_RANGE_FLAGS`: what the app promises about a table's descriptors and
    /// the data behind them.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct DescriptorRangeFlags: u32 {
        /// The descriptors may change until the list executes.
        const DESCRIPTORS_VOLATILE = 0x1;
        /// The data may change at any time.
        const DATA_VOLATILE = 0x2;
        /// The data does not change while the table is set during execution.
        const DATA_STATIC_WHILE_SET_AT_EXECUTE = 0x4;
        /// The data does not change once recorded.
        const DATA_STATIC = 0x8;
        /// Static descriptors whose buffer accesses stay bounds-checked.
        const DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS = 0x10000;
    }
}

/// The data flags: at most one of them may be set.
const DATA_FLAGS: DescriptorRangeFlags = DescriptorRangeFlags::DATA_VOLATILE
    .union(DescriptorRangeFlags::DATA_STATIC_WHILE_SET_AT_EXECUTE)
    .union(DescriptorRangeFlags::DATA_STATIC);

/// A range's `count` that covers every register from its base on (`UINT_MAX`,
/// `D3D12_DESCRIPTOR_RANGE_UNBOUNDED`).
pub const DESCRIPTOR_RANGE_UNBOUNDED: u32 = u32::MAX;
/// A range's offset that follows the previous range (`D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND`).
pub const DESCRIPTOR_RANGE_OFFSET_APPEND: u32 = u32::MAX;
/// Root signature size limit in dwords.
pub const MAX_ROOT_DWORDS: u64 = 64;
/// Most static samplers in one root signature.
pub const MAX_STATIC_SAMPLERS: usize = 2032;

/// A range of descriptors in a table (`D3D12_DESCRIPTOR_RANGE1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DescriptorRange {
    /// The registers' class.
    pub class: RegisterClass,
    /// Number of descriptors, or [`DESCRIPTOR_RANGE_UNBOUNDED`].
    pub count: u32,
    /// The first register.
    pub base_register: u32,
    /// The register space.
    pub register_space: u32,
    /// Volatility of the descriptors and their data.
    pub flags: DescriptorRangeFlags,
    /// Descriptors from the table's start, or [`DESCRIPTOR_RANGE_OFFSET_APPEND`].
    pub offset: u32,
}

impl DescriptorRange {
    /// `count` descriptors of `class` from register `base_register` of space 0, appended to the
    /// table, with the version-1.1 default flags.
    pub fn new(class: RegisterClass, count: u32, base_register: u32) -> Self {
        Self {
            class,
            count,
            base_register,
            register_space: 0,
            flags: DescriptorRangeFlags::empty(),
            offset: DESCRIPTOR_RANGE_OFFSET_APPEND,
        }
    }

    /// The same range in register space `space`.
    pub fn space(self, space: u32) -> Self {
        Self { register_space: space, ..self }
    }

    /// The same range at `offset` descriptors from the table's start.
    pub fn at(self, offset: u32) -> Self {
        Self { offset, ..self }
    }

    /// The same range with `flags`.
    pub fn flags(self, flags: DescriptorRangeFlags) -> Self {
        Self { flags, ..self }
    }

    /// The registers the range covers, last included.
    pub fn registers(&self) -> (u32, u32) {
        let last = match self.count {
            DESCRIPTOR_RANGE_UNBOUNDED => u32::MAX,
            n => self.base_register.saturating_add(n.saturating_sub(1)),
        };
        (self.base_register, last)
    }

    /// Whether the data behind these descriptors may not change after recording
    /// (`DATA_STATIC`), which lets legacy semantics skip their barriers.
    pub fn data_static(&self) -> bool {
        self.flags.contains(DescriptorRangeFlags::DATA_STATIC)
    }
}

/// A root descriptor's register (`D3D12_ROOT_DESCRIPTOR1`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RootDescriptor {
    /// The register.
    pub shader_register: u32,
    /// The register space.
    pub register_space: u32,
    /// Volatility of the data.
    pub flags: RootDescriptorFlags,
}

/// One root parameter (`D3D12_ROOT_PARAMETER1`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RootParameter {
    /// 32-bit constants in a constant-buffer register (one dword each).
    Constants {
        /// The register (`b<n>`).
        shader_register: u32,
        /// The register space.
        register_space: u32,
        /// Number of 32-bit values.
        count: u32,
        /// The stages that see it.
        visibility: ShaderVisibility,
    },
    /// A root constant buffer view: a GPU address (two dwords).
    Cbv(RootDescriptor, ShaderVisibility),
    /// A root shader resource view of a raw or structured buffer (two dwords).
    Srv(RootDescriptor, ShaderVisibility),
    /// A root unordered access view of a raw or structured buffer (two dwords).
    Uav(RootDescriptor, ShaderVisibility),
    /// A descriptor table: ranges of a shader-visible heap from a GPU handle (one dword).
    Table(Vec<DescriptorRange>, ShaderVisibility),
}

impl RootParameter {
    /// `count` root constants in register `b<register>` of space 0, seen by every stage.
    pub fn constants(register: u32, count: u32) -> Self {
        RootParameter::Constants {
            shader_register: register,
            register_space: 0,
            count,
            visibility: ShaderVisibility::All,
        }
    }

    /// A root CBV in `b<register>` of space 0, seen by every stage.
    pub fn cbv(register: u32) -> Self {
        RootParameter::Cbv(RootDescriptor { shader_register: register, ..Default::default() }, ShaderVisibility::All)
    }

    /// A root SRV in `t<register>` of space 0, seen by every stage.
    pub fn srv(register: u32) -> Self {
        RootParameter::Srv(RootDescriptor { shader_register: register, ..Default::default() }, ShaderVisibility::All)
    }

    /// A root UAV in `u<register>` of space 0, seen by every stage.
    pub fn uav(register: u32) -> Self {
        RootParameter::Uav(RootDescriptor { shader_register: register, ..Default::default() }, ShaderVisibility::All)
    }

    /// A descriptor table of `ranges`, seen by every stage.
    pub fn table(ranges: Vec<DescriptorRange>) -> Self {
        RootParameter::Table(ranges, ShaderVisibility::All)
    }

    /// The same parameter in register space `space` (tables keep their ranges' spaces).
    pub fn space(mut self, space: u32) -> Self {
        match &mut self {
            RootParameter::Constants { register_space, .. } => *register_space = space,
            RootParameter::Cbv(d, _) | RootParameter::Srv(d, _) | RootParameter::Uav(d, _) => d.register_space = space,
            RootParameter::Table(..) => {}
        }
        self
    }

    /// The same parameter seen by `visibility` only.
    pub fn visibility(mut self, visibility: ShaderVisibility) -> Self {
        match &mut self {
            RootParameter::Constants { visibility: v, .. }
            | RootParameter::Cbv(_, v)
            | RootParameter::Srv(_, v)
            | RootParameter::Uav(_, v)
            | RootParameter::Table(_, v) => *v = visibility,
        }
        self
    }

    /// The stages that see it.
    pub fn shader_visibility(&self) -> ShaderVisibility {
        match self {
            RootParameter::Constants { visibility, .. }
            | RootParameter::Cbv(_, visibility)
            | RootParameter::Srv(_, visibility)
            | RootParameter::Uav(_, visibility)
            | RootParameter::Table(_, visibility) => *visibility,
        }
    }

    /// Its cost in root-signature dwords.
    pub fn dwords(&self) -> u64 {
        match self {
            RootParameter::Constants { count, .. } => u64::from(*count),
            RootParameter::Cbv(..) | RootParameter::Srv(..) | RootParameter::Uav(..) => 2,
            RootParameter::Table(..) => 1,
        }
    }

    /// The root descriptor and its class, for root CBVs, SRVs and UAVs.
    pub fn root_descriptor(&self) -> Option<(RegisterClass, &RootDescriptor)> {
        match self {
            RootParameter::Cbv(d, _) => Some((RegisterClass::Cbv, d)),
            RootParameter::Srv(d, _) => Some((RegisterClass::Srv, d)),
            RootParameter::Uav(d, _) => Some((RegisterClass::Uav, d)),
            _ => None,
        }
    }
}

/// A sampler built into the root signature (`D3D12_STATIC_SAMPLER_DESC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StaticSampler {
    /// The sampler; its border colour is `border`'s.
    pub desc: SamplerDesc,
    /// One of the three static border colours.
    pub border: StaticBorderColor,
    /// The register (`s<n>`).
    pub shader_register: u32,
    /// The register space.
    pub register_space: u32,
    /// The stages that see it.
    pub visibility: ShaderVisibility,
}

bitflags::bitflags! {
    /// `D3D12_ROOT_SIGNATURE_FLAGS` asyncmd reads.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct RootSignatureFlags: u32 {
        /// Draws may read vertex buffers through the input assembler.
        const ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT = 0x1;
    }
}

/// A root signature description, version 1.1.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RootSignatureDesc {
    /// Parameters in slot order.
    pub parameters: Vec<RootParameter>,
    /// Static samplers.
    pub static_samplers: Vec<StaticSampler>,
    /// Flags.
    pub flags: RootSignatureFlags,
}

/// One register range a root signature binds, with where it comes from: what the overlap
/// check and pipeline creation compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterBinding {
    /// The class.
    pub class: RegisterClass,
    /// The space.
    pub space: u32,
    /// First and last register.
    pub registers: (u32, u32),
    /// The stages that see it.
    pub visibility: ShaderVisibility,
    /// The parameter index, or `None` for a static sampler.
    pub parameter: Option<usize>,
}

impl RootSignatureDesc {
    /// A description of `parameters` with no static samplers and no flags.
    pub fn new(parameters: Vec<RootParameter>) -> Self {
        Self { parameters, ..Default::default() }
    }

    /// Its size in dwords (each root constant 1, a root descriptor 2, a table 1).
    pub fn dwords(&self) -> u64 {
        self.parameters.iter().map(RootParameter::dwords).sum()
    }

    /// Every register range the signature binds: its constants, root descriptors, table ranges
    /// and static samplers.
    pub fn bindings(&self) -> impl Iterator<Item = RegisterBinding> + '_ {
        let params = self.parameters.iter().enumerate().flat_map(|(i, p)| {
            let visibility = p.shader_visibility();
            let one = |class, register: u32, space| RegisterBinding {
                class,
                space,
                registers: (register, register),
                visibility,
                parameter: Some(i),
            };
            let v: Vec<RegisterBinding> = match p {
                RootParameter::Constants { shader_register, register_space, .. } => {
                    vec![one(RegisterClass::Cbv, *shader_register, *register_space)]
                }
                RootParameter::Table(ranges, _) => ranges
                    .iter()
                    .map(|r| RegisterBinding {
                        class: r.class,
                        space: r.register_space,
                        registers: r.registers(),
                        visibility,
                        parameter: Some(i),
                    })
                    .collect(),
                _ => p
                    .root_descriptor()
                    .map(|(class, d)| one(class, d.shader_register, d.register_space))
                    .into_iter()
                    .collect(),
            };
            v
        });
        let samplers = self.static_samplers.iter().map(|s| RegisterBinding {
            class: RegisterClass::Sampler,
            space: s.register_space,
            registers: (s.shader_register, s.shader_register),
            visibility: s.visibility,
            parameter: None,
        });
        params.chain(samplers)
    }

    /// Why D3D12's serializer refuses this description, if it does: the 64-dword limit, empty
    /// or mixed tables, ranges of no descriptors or past the registers, an unbounded range
    /// followed by an appended one, descriptor offsets past 32 bits, flags that contradict each
    /// other, registers bound twice for a stage, too many or invalid static samplers.
    pub fn invalid_reason(&self) -> Option<String> {
        let dwords = self.dwords();
        if dwords > MAX_ROOT_DWORDS {
            return Some(format!("{dwords} dwords exceed the {MAX_ROOT_DWORDS}-dword root signature limit"));
        }
        for (i, p) in self.parameters.iter().enumerate() {
            if let RootParameter::Constants { count: 0, .. } = p {
                return Some(format!("parameter {i} holds no constants"));
            }
            if let Some((_, d)) = p.root_descriptor() {
                if let Some(r) = data_flags_reason(DescriptorRangeFlags::from_bits_retain(d.flags.bits())) {
                    return Some(format!("parameter {i}: {r}"));
                }
            }
            if let RootParameter::Table(ranges, _) = p {
                if let Some(r) = table_reason(ranges) {
                    return Some(format!("parameter {i} (a descriptor table): {r}"));
                }
            }
        }
        if self.static_samplers.len() > MAX_STATIC_SAMPLERS {
            return Some(format!(
                "{} static samplers exceed the {MAX_STATIC_SAMPLERS} allowed",
                self.static_samplers.len()
            ));
        }
        for (i, s) in self.static_samplers.iter().enumerate() {
            if let Some(r) = s.desc.invalid_reason() {
                return Some(format!("static sampler {i}: {r}"));
            }
        }
        self.overlap_reason()
    }

    fn overlap_reason(&self) -> Option<String> {
        let mut all: Vec<RegisterBinding> = self.bindings().collect();
        all.sort_by_key(|b| (b.class, b.space, b.registers.0));
        for (i, a) in all.iter().enumerate() {
            let later = all[i + 1..].iter().take_while(|b| b.class == a.class && b.space == a.space);
            for b in later {
                if b.registers.0 > a.registers.1 {
                    // Sorted by first register: a bounded range ends before every later one
                    // starts once one starts past it; keep scanning for an unbounded `a` only.
                    if a.registers.1 != u32::MAX {
                        break;
                    }
                }
                if b.registers.0 <= a.registers.1 && a.visibility.overlaps(b.visibility) {
                    let name = |x: &RegisterBinding| match x.parameter {
                        Some(p) => format!("parameter {p}"),
                        None => "a static sampler".to_string(),
                    };
                    return Some(format!(
                        "{} and {} both bind {}{} of space {} for one stage",
                        name(a),
                        name(b),
                        a.class.letter(),
                        b.registers.0,
                        a.space
                    ));
                }
            }
        }
        None
    }
}

fn data_flags_reason(flags: DescriptorRangeFlags) -> Option<String> {
    if (flags & DATA_FLAGS).bits().count_ones() > 1 {
        return Some(format!("{flags:?} sets more than one DATA flag"));
    }
    None
}

fn table_reason(ranges: &[DescriptorRange]) -> Option<String> {
    if ranges.is_empty() {
        return Some("it has no ranges".into());
    }
    let samplers = ranges.iter().filter(|r| r.class == RegisterClass::Sampler).count();
    if samplers != 0 && samplers != ranges.len() {
        return Some("samplers and CBV/SRV/UAV ranges cannot share a table".into());
    }
    // Where the next appended range starts; `None` after an unbounded range.
    let mut next: Option<u64> = Some(0);
    for (j, r) in ranges.iter().enumerate() {
        if r.count == 0 {
            return Some(format!("range {j} has no descriptors"));
        }
        if r.count != DESCRIPTOR_RANGE_UNBOUNDED && u64::from(r.base_register) + u64::from(r.count) - 1 > 0xFFFF_FFFE {
            return Some(format!("range {j} runs past the last register"));
        }
        let start = match r.offset {
            DESCRIPTOR_RANGE_OFFSET_APPEND => match next {
                Some(s) => s,
                None => return Some(format!("range {j} is appended after an unbounded range")),
            },
            o => u64::from(o),
        };
        next = match r.count {
            DESCRIPTOR_RANGE_UNBOUNDED => None,
            n => Some(start + u64::from(n)),
        };
        if next.is_some_and(|n| n > u64::from(u32::MAX)) {
            return Some(format!("range {j} ends past 2^32 descriptors from the table's start"));
        }
        let f = r.flags;
        let known = DescriptorRangeFlags::all();
        if !known.contains(f) {
            return Some(format!("range {j} has unknown flags {:#x}", f.bits()));
        }
        if r.class == RegisterClass::Sampler && f.intersects(DATA_FLAGS) {
            return Some(format!("range {j}: sampler ranges take no DATA flags"));
        }
        if let Some(why) = data_flags_reason(f) {
            return Some(format!("range {j}: {why}"));
        }
        if f.contains(DescriptorRangeFlags::DESCRIPTORS_VOLATILE | DescriptorRangeFlags::DATA_STATIC) {
            return Some(format!("range {j}: DESCRIPTORS_VOLATILE cannot go with DATA_STATIC"));
        }
        if f.contains(DescriptorRangeFlags::DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS)
            && (f != DescriptorRangeFlags::DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS
                || r.class == RegisterClass::Sampler)
        {
            return Some(format!(
                "range {j}: DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS goes alone, on CBV/SRV/UAV ranges"
            ));
        }
    }
    None
}

/// Where each range of a table starts, in descriptors from the table's start.
pub fn range_offsets(ranges: &[DescriptorRange]) -> Vec<u64> {
    let mut next = 0u64;
    ranges
        .iter()
        .map(|r| {
            let start = if r.offset == DESCRIPTOR_RANGE_OFFSET_APPEND { next } else { u64::from(r.offset) };
            next = start.saturating_add(u64::from(r.count));
            start
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use RegisterClass::*;

    fn reason(parameters: Vec<RootParameter>) -> Option<String> {
        RootSignatureDesc::new(parameters).invalid_reason()
    }

    #[test]
    fn the_dword_limit_counts_constants_one_descriptors_two_tables_one() {
        // 61 + 2 + 1 = 64: at the limit.
        let at = vec![
            RootParameter::constants(0, 61),
            RootParameter::uav(0),
            RootParameter::table(vec![DescriptorRange::new(Srv, 1, 0)]),
        ];
        assert_eq!(reason(at.clone()), None);
        let mut over = at;
        over.push(RootParameter::table(vec![DescriptorRange::new(Srv, 1, 1)]));
        assert!(reason(over).unwrap().contains("65 dwords"));
        assert!(reason(vec![RootParameter::constants(0, u32::MAX); 3]).unwrap().contains("12884901885 dwords"));
    }

    #[test]
    fn tables_refuse_mixing_samplers_empty_ranges_and_appending_after_unbounded() {
        let t = |r: Vec<DescriptorRange>| reason(vec![RootParameter::table(r)]);
        assert!(t(vec![]).unwrap().contains("no ranges"));
        assert!(t(vec![DescriptorRange::new(Srv, 1, 0), DescriptorRange::new(Sampler, 1, 0)])
            .unwrap()
            .contains("cannot share"));
        assert!(t(vec![DescriptorRange::new(Uav, 0, 0)]).unwrap().contains("no descriptors"));
        let unbounded = DescriptorRange::new(Srv, DESCRIPTOR_RANGE_UNBOUNDED, 0);
        assert_eq!(t(vec![DescriptorRange::new(Uav, 2, 0), unbounded]), None);
        assert!(t(vec![unbounded, DescriptorRange::new(Uav, 1, 0)]).unwrap().contains("after an unbounded"));
        // An explicit offset after an unbounded range is allowed.
        assert_eq!(t(vec![unbounded, DescriptorRange::new(Uav, 1, 0).at(7)]), None);
        assert!(t(vec![DescriptorRange::new(Srv, 2, u32::MAX - 1)]).unwrap().contains("past the last register"));
        assert!(t(vec![DescriptorRange::new(Srv, 2, 0).at(u32::MAX - 1)]).unwrap().contains("2^32"));
    }

    #[test]
    fn flags_follow_the_version_1_1_rules() {
        let t = |class, f| reason(vec![RootParameter::table(vec![DescriptorRange::new(class, 1, 0).flags(f)])]);
        type F = DescriptorRangeFlags;
        assert_eq!(t(Srv, F::DATA_STATIC), None);
        assert_eq!(t(Sampler, F::DESCRIPTORS_VOLATILE), None);
        assert!(t(Srv, F::DATA_STATIC | F::DATA_VOLATILE).unwrap().contains("more than one DATA"));
        assert!(t(Sampler, F::DATA_STATIC).unwrap().contains("sampler ranges"));
        assert!(t(Uav, F::DESCRIPTORS_VOLATILE | F::DATA_STATIC).unwrap().contains("cannot go with"));
        assert_eq!(t(Uav, F::DESCRIPTORS_VOLATILE | F::DATA_VOLATILE), None);
        let keep = F::DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS;
        assert_eq!(t(Srv, keep), None);
        assert!(t(Srv, keep | F::DATA_STATIC).unwrap().contains("goes alone"));
        assert!(t(Srv, F::from_bits_retain(0x40)).unwrap().contains("unknown flags"));
        let d = RootDescriptor {
            flags: RootDescriptorFlags::DATA_STATIC | RootDescriptorFlags::DATA_VOLATILE,
            ..Default::default()
        };
        assert!(reason(vec![RootParameter::Cbv(d, ShaderVisibility::All)]).unwrap().contains("more than one DATA"));
    }

    #[test]
    fn a_register_bound_twice_for_one_stage_is_refused() {
        // Root constants are b registers.
        assert!(reason(vec![RootParameter::constants(1, 4), RootParameter::cbv(1)]).unwrap().contains("b1 of space 0"));
        assert_eq!(reason(vec![RootParameter::constants(1, 4), RootParameter::cbv(1).space(1)]), None);
        assert_eq!(reason(vec![RootParameter::srv(1), RootParameter::uav(1)]), None);
        // A table range covering t0–t3 and a root SRV at t3.
        let table = RootParameter::table(vec![DescriptorRange::new(Srv, 4, 0)]);
        assert!(reason(vec![table.clone(), RootParameter::srv(3)]).unwrap().contains("t3"));
        assert_eq!(reason(vec![table.clone(), RootParameter::srv(4)]), None);
        // An unbounded range reaches every register above its base, past bounded ranges between.
        let unbounded = RootParameter::table(vec![DescriptorRange::new(Srv, DESCRIPTOR_RANGE_UNBOUNDED, 10)]);
        assert!(reason(vec![unbounded, RootParameter::srv(11), RootParameter::srv(5000)]).is_some());
        // Different stages may reuse a register; `All` overlaps each.
        let vs = RootParameter::srv(0).visibility(ShaderVisibility::Vertex);
        let ps = RootParameter::srv(0).visibility(ShaderVisibility::Pixel);
        assert_eq!(reason(vec![vs.clone(), ps]), None);
        assert!(reason(vec![vs, RootParameter::srv(0)]).is_some());
        // Static samplers against sampler tables.
        let mut desc = RootSignatureDesc::new(vec![RootParameter::table(vec![DescriptorRange::new(Sampler, 2, 0)])]);
        desc.static_samplers.push(StaticSampler {
            desc: SamplerDesc::default(),
            border: StaticBorderColor::OpaqueBlack,
            shader_register: 1,
            register_space: 0,
            visibility: ShaderVisibility::All,
        });
        assert!(desc.invalid_reason().unwrap().contains("a static sampler"));
        desc.static_samplers[0].shader_register = 2;
        assert_eq!(desc.invalid_reason(), None);
        desc.static_samplers[0].desc.max_lod = -1.0;
        assert!(desc.invalid_reason().unwrap().contains("MinLOD"));
    }

    #[test]
    fn appended_ranges_follow_each_other_and_explicit_ones_stay_put() {
        let r = [
            DescriptorRange::new(Srv, 3, 0),
            DescriptorRange::new(Uav, 2, 0),
            DescriptorRange::new(Cbv, 1, 0).at(10),
            DescriptorRange::new(Srv, 1, 5),
        ];
        assert_eq!(range_offsets(&r), vec![0, 3, 10, 11]);
    }
}
