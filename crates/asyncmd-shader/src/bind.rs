//! Where a root signature gives an entry point each binding: the check D3D12 makes when a
//! pipeline is created, and the map the devices read at a dispatch.

use crate::module::ShaderStage;
use crate::reflect::{BindingKind, EntryPointInfo, ShaderBinding};
use asyncmd_types::{
    range_offsets, FilterReduction, RegisterClass, RootParameter, RootSignatureDesc, ShaderVisibility,
    DESCRIPTOR_RANGE_UNBOUNDED,
};

/// Where one binding's descriptor comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingSource {
    /// A constant buffer made of root parameter `parameter`'s constants.
    RootConstants {
        /// The parameter index.
        parameter: usize,
    },
    /// Root CBV, SRV or UAV `parameter`.
    RootDescriptor {
        /// The parameter index.
        parameter: usize,
    },
    /// The descriptor table of `parameter`, from `offset` descriptors past the table's start
    /// (the binding's first register; an array's next ones follow).
    Table {
        /// The parameter index.
        parameter: usize,
        /// Descriptors from the table's start.
        offset: u64,
        /// Whether its range's descriptors are `DESCRIPTORS_VOLATILE` (may change until the
        /// list executes).
        volatile: bool,
    },
    /// Static sampler `index`.
    StaticSampler {
        /// Its index in the description.
        index: usize,
    },
}

/// An entry point's bindings resolved against a root signature.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RootBindings {
    /// For each of the entry point's bindings, in its order, where it comes from.
    pub sources: Vec<BindingSource>,
    /// The root-constants parameter behind its push-constant block, if it has one.
    pub immediates: Option<usize>,
}

fn sees(stage: ShaderStage, v: ShaderVisibility) -> bool {
    matches!(
        (stage, v),
        (_, ShaderVisibility::All)
            | (ShaderStage::Vertex, ShaderVisibility::Vertex)
            | (ShaderStage::Pixel, ShaderVisibility::Pixel)
    )
}

/// Resolves every binding of `entry` against `root`, or says which one the root signature does
/// not give it, as D3D12 does at pipeline creation: the same class, space and registers, a
/// parameter the stage sees, root descriptors for buffers only, root constants large enough for
/// the constant buffer and the push-constant block.
pub fn bind_to_root(entry: &EntryPointInfo, root: &RootSignatureDesc) -> Result<RootBindings, String> {
    let mut out = RootBindings { sources: Vec::with_capacity(entry.bindings.len()), immediates: None };
    for b in &entry.bindings {
        out.sources.push(source_of(entry.stage, b, root)?);
    }
    if let Some(bytes) = entry.immediate_bytes {
        let found = root.parameters.iter().enumerate().find_map(|(i, p)| match p {
            RootParameter::Constants { count, visibility, .. } if sees(entry.stage, *visibility) => Some((i, *count)),
            _ => None,
        });
        let Some((parameter, count)) = found else {
            return Err(format!(
                "the shader's push-constant block ({bytes} bytes) needs root constants, and the root signature has none \
                 its {:?} stage sees",
                entry.stage
            ));
        };
        if u64::from(bytes) > 4 * u64::from(count) {
            return Err(format!(
                "the shader's push-constant block is {bytes} bytes, root parameter {parameter} holds {count} constants"
            ));
        }
        out.immediates = Some(parameter);
    }
    Ok(out)
}

fn source_of(stage: ShaderStage, b: &ShaderBinding, root: &RootSignatureDesc) -> Result<BindingSource, String> {
    let what = || format!("{}{} of space {} (`{}`)", b.class.letter(), b.register, b.space, b.name);
    let last = if b.count == DESCRIPTOR_RANGE_UNBOUNDED {
        u32::MAX
    } else {
        b.register.checked_add(b.count - 1).ok_or_else(|| format!("{} runs past the last register", what()))?
    };
    for (i, p) in root.parameters.iter().enumerate() {
        if !sees(stage, p.shader_visibility()) {
            continue;
        }
        match p {
            RootParameter::Constants { shader_register, register_space, count, .. } => {
                if b.class != RegisterClass::Cbv || (*register_space, *shader_register) != (b.space, b.register) {
                    continue;
                }
                let BindingKind::Buffer { size, .. } = b.kind else { continue };
                if size > 4 * u64::from(*count) || b.count != 1 {
                    return Err(format!(
                        "{} is a {size}-byte constant buffer; root parameter {i} holds {count} constants",
                        what()
                    ));
                }
                return Ok(BindingSource::RootConstants { parameter: i });
            }
            RootParameter::Table(ranges, _) => {
                for (r, start) in ranges.iter().zip(range_offsets(ranges)) {
                    let (first, end) = r.registers();
                    if r.class != b.class || r.register_space != b.space || b.register < first || b.register > end {
                        continue;
                    }
                    if last > end {
                        return Err(format!(
                            "{} spans {} registers; range {first}–{end} of table parameter {i} covers only part",
                            what(),
                            b.count
                        ));
                    }
                    let volatile = r.flags.contains(asyncmd_types::DescriptorRangeFlags::DESCRIPTORS_VOLATILE);
                    return Ok(BindingSource::Table {
                        parameter: i,
                        offset: start + u64::from(b.register - first),
                        volatile,
                    });
                }
            }
            _ => {
                let Some((class, d)) = p.root_descriptor() else { continue };
                if class != b.class || (d.register_space, d.shader_register) != (b.space, b.register) {
                    continue;
                }
                if !matches!(b.kind, BindingKind::Buffer { .. }) || b.count != 1 {
                    return Err(format!(
                        "{} is not a single buffer, and root parameter {i} is a root descriptor (buffers only)",
                        what()
                    ));
                }
                return Ok(BindingSource::RootDescriptor { parameter: i });
            }
        }
    }
    if b.class == RegisterClass::Sampler {
        let found = root
            .static_samplers
            .iter()
            .position(|s| sees(stage, s.visibility) && (s.register_space, s.shader_register) == (b.space, b.register));
        if let Some(index) = found {
            if b.count != 1 {
                return Err(format!("{} is an array of samplers; a static sampler is one", what()));
            }
            // A comparison read needs a comparison filter, and a plain read a plain one.
            let compares = root.static_samplers[index].desc.filter.reduction == FilterReduction::Comparison;
            if matches!(b.kind, BindingKind::Sampler { comparison } if comparison != compares) {
                return Err(format!(
                    "{} is a {} sampler, and static sampler {index} {} a comparison filter",
                    what(),
                    if compares { "plain" } else { "comparison" },
                    if compares { "has" } else { "has no" }
                ));
            }
            return Ok(BindingSource::StaticSampler { index });
        }
    }
    Err(format!("the root signature binds no {} for the {stage:?} stage", what()))
}
