//! Random kernels: WGSL generated from a seed (integer expressions over random reads of a
//! bound buffer, texel loads of a texture in a descriptor table, root constants and the
//! thread's ids; ifs, bounded loops and switches; calls that change a variable through a
//! pointer; an exchange through workgroup memory across a barrier), run on two devices, or
//! twice on one, and compared byte for byte. A third of them are dispatched by
//! `ExecuteIndirect` commands that set some of the root constants (the Vulkan device runs
//! those with the kernel's form that reads its constants from memory). Each command also sets
//! where its threads write (`c.s`): D3D12 puts no barrier between an indirect call's
//! dispatches, so commands writing the same words would race (the H100 showed it).
//!
//! Every operation has one defined result, so any difference is a bug in a device: integers
//! by WGSL's division, shift and overflow rules, and floats ([`Gen::float`]) kept to integer
//! values below 2^24, where every operation is exact — no rounding, no denormals, no NaN, a
//! contracted `a * b + c` the same as its parts — and which return to the integers by `i32()`,
//! so that a zero's sign (which Vulkan need not keep) does not show. Reads index the input and the
//! texture's texels and mips with unchecked values, so out-of-bounds reads (0 on every device)
//! are exercised too.

use asyncmd::ddi::{AppShader, ComputePipelineDesc, ComputeShader, PipelineDesc};
use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::Device;
use std::fmt::Write;
use std::sync::Arc;
use std::time::Duration;

/// Words of the input buffer.
const INPUT_WORDS: u32 = 61;
/// Variables each thread keeps and writes out.
const VARS: usize = 4;
/// The texture's size (mip 0) and mips: an R32 uint texture behind a table's SRV (t1).
const TEXTURE: (u32, u32, u32) = (8, 4, 2);
/// Texels each thread loads (`t0`, `t1`, …) before its statements.
const TEXELS: usize = 2;

/// A generated kernel and how it is dispatched.
pub struct Kernel {
    pub wgsl: String,
    pub group: u32,
    pub groups: u32,
    pub constants: [u32; 2],
    pub input: Vec<u8>,
    /// Dispatched by `ExecuteIndirect` instead: the constants each command sets, from dword
    /// `dest` of the two, and each command's groups; command `k` writes slots from
    /// `k * group * groups` on.
    pub indirect: Option<Indirect>,
}

/// `ExecuteIndirect` commands that each set `values.len()` constants from `dest` and their
/// first output slot (`c.s`), then dispatch.
pub struct Indirect {
    pub dest: u32,
    pub commands: Vec<(Vec<u32>, u32)>,
}

impl Indirect {
    fn signature(&self) -> CommandSignatureDesc {
        let count = self.commands.first().map_or(1, |(v, _)| v.len() as u32);
        CommandSignatureDesc {
            byte_stride: 4 * count + 4 + 12,
            arguments: vec![
                IndirectArgument::Constant { root_parameter: 0, dest_offset: self.dest, count },
                IndirectArgument::Constant { root_parameter: 0, dest_offset: 2, count: 1 },
                IndirectArgument::Dispatch,
            ],
        }
    }

    /// The commands' bytes; each command's threads write from slot `k * slots` on.
    fn arguments(&self, slots: u32) -> Vec<u8> {
        self.commands
            .iter()
            .zip(0u32..)
            .flat_map(|((v, groups), k)| v.iter().copied().chain([k * slots, *groups, 1, 1]))
            .flat_map(u32::to_le_bytes)
            .collect()
    }
}

struct Gen {
    rng: fastrand::Rng,
    depth: u32,
}

impl Gen {
    /// A u32 expression.
    fn expr(&mut self) -> String {
        self.depth += 1;
        let leaf = self.depth > 3 || self.rng.u8(0..10) < 3;
        let e = if leaf {
            match self.rng.u8(0..8) {
                // Behind a root constant, so that naga's constant evaluator (which refuses a
                // constant division by zero or overflow) leaves it to the device.
                0 => format!("(c.b * 0u + {}u)", self.edge()),
                1 => "id.x".into(),
                2 => "li".into(),
                3 => format!("c.{}", if self.rng.bool() { "a" } else { "b" }),
                4 => format!("input[{}]", self.index()),
                // A texel, loaded where the whole group runs (below).
                5 => format!("t{}", self.rng.usize(0..TEXELS)),
                _ => format!("v{}", self.rng.usize(0..VARS)),
            }
        } else {
            let (a, b) = (self.expr(), self.expr());
            match self.rng.u8(0..19) {
                0 => format!("({a} + {b})"),
                1 => format!("({a} - {b})"),
                2 => format!("({a} * {b})"),
                3 => format!("({a} / {b})"),
                4 => format!("({a} % {b})"),
                5 => format!("({a} & {b})"),
                6 => format!("({a} | {b})"),
                7 => format!("({a} ^ {b})"),
                8 => format!("({a} << ({b} & 31u))"),
                9 => format!("({a} >> ({b} & 31u))"),
                10 => format!("min({a}, {b})"),
                11 => format!("max({a}, {b})"),
                12 => format!("select({a}, {b}, {a} < {b})"),
                13 => format!("bitcast<u32>(i32({a}) / i32({b}))"),
                14 => format!("bitcast<u32>(i32({a}) % i32({b}))"),
                15 => format!("bitcast<u32>(i32({a}) >> ({b} & 31u))"),
                16 => format!("countOneBits({a} ^ {b})"),
                17 => format!("(bitcast<u32>(i32({})) + {a})", self.float(2)),
                _ => format!("u32({a} != {b}) + reverseBits({a})"),
            }
        };
        self.depth -= 1;
        e
    }

    /// An f32 expression of at most `depth` levels of binary operations over leaves of
    /// magnitude 63 at most, each value an integer: 63^4 < 2^24, so every value is exact.
    /// Rounding functions see halves (`round` ties to even in WGSL).
    fn float(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.u8(0..4) == 0 {
            return match self.rng.u8(0..3) {
                0 => format!("f32({} & 63u)", self.expr()),
                1 => format!("f32(bitcast<i32>({}) % 64)", self.expr()),
                _ => format!("({}.0)", self.rng.i32(-63..64)),
            };
        }
        let (a, b) = (self.float(depth - 1), self.float(depth - 1));
        match self.rng.u8(0..11) {
            0 => format!("({a} + {b})"),
            1 => format!("({a} - {b})"),
            2 => format!("({a} * {b})"),
            3 => format!("min({a}, {b})"),
            4 => format!("max({a}, {b})"),
            5 => format!("select({a}, {b}, {a} < {b})"),
            6 => format!("abs(-{a})"),
            7 => format!("floor({a} * 0.5)"),
            8 => format!("ceil({a} * 0.5)"),
            9 => format!("round({a} * 0.5)"),
            _ => format!("(trunc({a} * 0.5) + f32({a} >= {b}))"),
        }
    }

    /// An index into the input: in bounds, or anything.
    fn index(&mut self) -> String {
        match self.rng.u8(0..4) {
            0 => format!("{}u", self.rng.u32(0..INPUT_WORDS * 2)),
            1 => format!("(id.x + {}u) % {INPUT_WORDS}u", self.rng.u32(0..INPUT_WORDS)),
            _ => format!("(v{} % {}u)", self.rng.usize(0..VARS), INPUT_WORDS + self.rng.u32(0..8)),
        }
    }

    /// Values at the edges of integer arithmetic.
    fn edge(&mut self) -> u32 {
        *self.rng.choice(&[0, 1, 2, 3, 31, 32, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFFE, 12345]).unwrap_or(&0)
    }

    fn statements(&mut self, out: &mut String, indent: usize, budget: &mut u32) {
        let pad = " ".repeat(indent);
        for _ in 0..self.rng.u32(1..4) {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            match self.rng.u8(0..10) {
                0 | 1 if indent < 12 => {
                    let cond = format!("({} & 1u) == 1u", self.expr());
                    let _ = writeln!(out, "{pad}if {cond} {{");
                    self.statements(out, indent + 4, budget);
                    let _ = writeln!(out, "{pad}}} else {{");
                    self.statements(out, indent + 4, budget);
                    let _ = writeln!(out, "{pad}}}");
                }
                2 if indent < 12 => {
                    // A loop whose trip count depends on the lane, with an early exit.
                    let k = format!("k{indent}");
                    let trips = format!("({} % 5u)", self.expr());
                    let _ = writeln!(out, "{pad}for (var {k} = 0u; {k} < {trips}; {k}++) {{");
                    let exit = self.expr();
                    let _ = writeln!(out, "{pad}    if ({exit} & 7u) == 3u {{ break; }}");
                    self.statements(out, indent + 4, budget);
                    let _ = writeln!(out, "{pad}}}");
                }
                3 if indent < 12 => {
                    let sel = self.expr();
                    let _ = writeln!(out, "{pad}switch {sel} % 4u {{");
                    for case in ["case 0u", "case 1u, 2u", "default"] {
                        let _ = writeln!(out, "{pad}    {case}: {{");
                        self.statements(out, indent + 8, budget);
                        let _ = writeln!(out, "{pad}    }}");
                    }
                    let _ = writeln!(out, "{pad}}}");
                }
                4 => {
                    // A call that changes a variable through a pointer (by reference), with a
                    // branch of its own.
                    let v = self.rng.usize(0..VARS);
                    let e = self.expr();
                    let _ = writeln!(out, "{pad}stir(&v{v}, {e});");
                }
                _ => {
                    let v = self.rng.usize(0..VARS);
                    let e = self.expr();
                    let _ = writeln!(out, "{pad}v{v} = {e};");
                }
            }
        }
    }
}

impl Kernel {
    pub fn generate(seed: u64) -> Kernel {
        let mut g = Gen { rng: fastrand::Rng::with_seed(seed), depth: 0 };
        let group = *g.rng.choice(&[1u32, 7, 32, 64]).unwrap_or(&1);
        let groups = g.rng.u32(1..4);
        let mut body = String::new();
        // Half the kernels exchange values through workgroup memory first: each thread writes
        // its slot, the group meets at a barrier, and each reads another's.
        let shared = g.rng.bool();
        if shared {
            let k = g.rng.u32(0..group);
            let _ =
                writeln!(body, "    wg[li] = v0;\n    workgroupBarrier();\n    v1 = v1 ^ wg[(li + {k}u) % {group}u];");
        }
        let mut budget = 12;
        g.statements(&mut body, 4, &mut budget);
        let mut wgsl = format!(
            "{}struct C {{ a: u32, b: u32, s: u32 }}\nvar<immediate> c: C;\n\
             @group(0) @binding(0) var<storage, read> input: array<u32>;\n\
             @group(0) @binding(0) var<storage, read_write> output: array<u32>;\n\
             @group(0) @binding(1) var tex: texture_2d<u32>;\n\
             fn stir(p: ptr<function, u32>, x: u32) {{\n\
                 *p = (*p ^ x) + (x >> 3u);\n\
                 if (x & 2u) == 2u {{ *p = *p * 3u; }}\n\
             }}\n\
             @compute @workgroup_size({group})\n\
             fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) li: u32) {{\n",
            if shared { format!("var<workgroup> wg: array<u32, {group}>;\n") } else { String::new() }
        );
        for v in 0..VARS {
            let _ = writeln!(wgsl, "    var v{v} = input[(id.x + {v}u) % {INPUT_WORDS}u];");
        }
        // Texels at coordinates past the texture's (negative ones too) of the dispatch's mip,
        // loaded where every lane of the group runs: lavapipe 22.3 checks an 8-lane group's
        // loads against one lane's mip (`textures::lanes_reading_different_mips_each_read_their_own`),
        // and loads under divergent branches gave it zeros where the reference device read
        // texels (5 seeds in 100000..106000 of the long run). The H200 agrees with the reference
        // device on those seeds and on 20,686 kernels of texel loads under divergent branches.
        for t in 0..TEXELS {
            let mut v = || g.rng.usize(0..VARS);
            let (x, y) = (v(), v());
            let m = if g.rng.bool() { "a" } else { "b" };
            let load = if g.rng.bool() {
                format!("textureLoad(tex, vec2<u32>(v{x} % 10u, v{y} % 6u), c.{m} & 1u).x")
            } else {
                format!("textureLoad(tex, vec2<i32>(bitcast<i32>(v{x}) % 10, bitcast<i32>(v{y}) % 6), bitcast<i32>(c.{m}) & 1).x")
            };
            let _ = writeln!(wgsl, "    let t{t} = {load};");
        }
        wgsl += &body;
        for v in 0..VARS {
            let _ = writeln!(wgsl, "    output[(c.s + id.x) * {VARS}u + {v}u] = v{v};");
        }
        wgsl += "}\n";
        let input = (0..INPUT_WORDS).flat_map(|_| g.edge().wrapping_add(g.rng.u32(0..3)).to_le_bytes()).collect();
        let constants = [g.edge(), g.rng.u32(..)];
        let indirect = (g.rng.u32(0..3) == 0).then(|| {
            let dest = g.rng.u32(0..2);
            let count = g.rng.u32(1..=2 - dest) as usize;
            let commands = (0..g.rng.usize(1..3))
                .map(|_| ((0..count).map(|_| g.edge()).collect(), g.rng.u32(1..=groups)))
                .collect();
            Indirect { dest, commands }
        });
        Kernel { wgsl, group, groups, constants, input, indirect }
    }

    /// Runs the kernel on `device`: the output buffer's bytes.
    pub fn run(&self, device: &Device) -> Result<Vec<u8>, String> {
        let e = |e: asyncmd::Error| e.to_string();
        let module = Arc::new(ShaderModule::from_wgsl(&self.wgsl).map_err(e)?);
        let root = device
            .create_root_signature(&RootSignatureDesc::new(vec![
                RootParameter::constants(0, 3),
                RootParameter::srv(0),
                RootParameter::uav(0),
                RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 1, 1)]),
            ]))
            .map_err(e)?;
        let pso = device
            .create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
                root_signature: root.id(),
                cs: ComputeShader::App(AppShader { module, entry_point: "main".into() }),
            }))
            .map_err(e)?;
        let slots = self.group * self.groups;
        let commands = self.indirect.as_ref().map_or(1, |i| i.commands.len() as u32);
        let out_len = u64::from(slots * commands) * VARS as u64 * 4;
        let buffer = |heap, len: u64, flags| {
            device.create_committed_resource(
                heap,
                &ResourceDesc::buffer(len).with_flags(flags),
                BarrierLayout::Undefined,
            )
        };
        let input = buffer(HeapType::Upload, self.input.len() as u64, ResourceFlags::empty()).map_err(e)?;
        input.write(0, &self.input).map_err(e)?;
        let output = buffer(HeapType::Default, out_len, ResourceFlags::ALLOW_UNORDERED_ACCESS).map_err(e)?;
        let readback = buffer(HeapType::Readback, out_len, ResourceFlags::empty()).map_err(e)?;
        let queue = device.create_command_queue(CommandListType::Direct).map_err(e)?;
        let alloc = device.create_command_allocator(CommandListType::Direct).map_err(e)?;
        let (heap, _texture) = self.texture(device, &queue).map_err(e)?;
        let mut list = device.create_command_list(CommandListType::Direct, &alloc).map_err(e)?;
        list.set_descriptor_heaps(&[&heap]);
        list.set_compute_root_signature(&root);
        list.set_pipeline_state(&pso);
        list.set_compute_root_32bit_constants(0, &[self.constants[0], self.constants[1], 0], 0);
        list.set_compute_root_shader_resource_view(1, input.gpu_address(0));
        list.set_compute_root_unordered_access_view(2, output.gpu_address(0));
        if let Some(table) = heap.gpu_handle(0) {
            list.set_compute_root_descriptor_table(3, &table);
        }
        // Kept until the list has run.
        let mut _arguments = None;
        match &self.indirect {
            None => list.dispatch(self.groups, 1, 1),
            Some(indirect) => {
                let sig = device.create_command_signature(&indirect.signature(), Some(&root)).map_err(e)?;
                let bytes = indirect.arguments(slots);
                let args = buffer(HeapType::Upload, bytes.len() as u64, ResourceFlags::empty()).map_err(e)?;
                args.write(0, &bytes).map_err(e)?;
                list.execute_indirect(&sig, indirect.commands.len() as u32, &args, 0, None);
                _arguments = Some(args);
            }
        }
        list.barrier(&[BarrierGroup::Buffer(vec![BufferBarrier {
            sync_before: BarrierSync::COMPUTE_SHADING,
            sync_after: BarrierSync::COPY,
            access_before: BarrierAccess::UNORDERED_ACCESS,
            access_after: BarrierAccess::COPY_SOURCE,
            resource: &output,
            offset: 0,
            size: u64::MAX,
        }])]);
        list.copy_buffer_region(&readback, 0, &output, 0, out_len);
        list.close().map_err(e)?;
        queue.execute_command_lists(&[&list]).map_err(e)?;
        queue.wait_idle(Duration::from_secs(60)).map_err(e)?;
        readback.read_vec(0, out_len as usize).map_err(e)
    }

    /// The kernel's texture, loaded from the input's words (texel i of mip m is word
    /// `(i + 32m) mod 61`, flipped), and a shader-visible heap holding its SRV (which does not
    /// keep the texture alive: the caller does).
    fn texture(
        &self,
        device: &Device,
        queue: &asyncmd::CommandQueue,
    ) -> asyncmd::Result<(asyncmd::DescriptorHeap, asyncmd::Resource)> {
        let (w, h, mips) = TEXTURE;
        let desc = ResourceDesc::tex2d(Format::R32Uint, w, h).with_mips(mips as u16);
        let tex = device.create_committed_resource(HeapType::Default, &desc, BarrierLayout::Common)?;
        let fp = device.copyable_footprints(&desc, 0, mips, 0)?;
        let staging = device.create_committed_resource(
            HeapType::Upload,
            &ResourceDesc::buffer(fp.total_bytes),
            BarrierLayout::Undefined,
        )?;
        let word =
            |i: usize| u32::from_le_bytes(self.input[i * 4..i * 4 + 4].try_into().unwrap_or([0; 4])) ^ 0x5a5a_5a5a;
        let alloc = device.create_command_allocator(CommandListType::Direct)?;
        let mut list = device.create_command_list(CommandListType::Direct, &alloc)?;
        for (m, layout) in fp.layouts.iter().enumerate() {
            let (mw, mh) = ((w >> m).max(1) as usize, (h >> m).max(1) as usize);
            for y in 0..mh {
                let row: Vec<u8> =
                    (0..mw).flat_map(|x| word((y * mw + x + 32 * m) % INPUT_WORDS as usize).to_le_bytes()).collect();
                staging.write(layout.offset + y as u64 * u64::from(layout.footprint.row_pitch), &row)?;
            }
            list.copy_texture_region(
                &TextureCopyLocation::subresource(&tex, m as u32),
                0,
                0,
                0,
                &TextureCopyLocation::footprint(&staging, *layout),
                None,
            );
        }
        list.close()?;
        queue.execute_command_lists(&[&list])?;
        queue.wait_idle(Duration::from_secs(60))?;
        let heap = device.create_shader_visible_descriptor_heap(asyncmd::DescriptorHeapType::CbvSrvUav, 1)?;
        device.create_shader_resource_view(&tex, TextureViewDesc::texture_2d(), &heap.handle(0))?;
        Ok((heap, tex))
    }
}
