// Native FillBuffers: one dispatch fills a whole batch. Workgroup row y fills entry y of the
// table: `count` dwords from `dst`, dword i taking pattern dword (i mod length).
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Dwords {
    uint v[];
};

struct Fill {
    uvec4 pattern;
    uvec2 dst;
    uint count;
    uint pattern_length;
};

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Table {
    Fill f[];
};

layout(push_constant) uniform Constants {
    Table table;
    uint first;
} pc;

void main() {
    Fill f = pc.table.f[pc.first + gl_WorkGroupID.y];
    Dwords dst = Dwords(f.dst);
    uint stride = gl_NumWorkGroups.x * 256u;
    for (uint i = gl_WorkGroupID.x * 256u + gl_LocalInvocationID.x; i < f.count; i += stride) {
        dst.v[i] = f.pattern[i % max(f.pattern_length, 1u)];
    }
}
