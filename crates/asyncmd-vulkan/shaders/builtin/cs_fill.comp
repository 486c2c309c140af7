// ShaderId::FillCs: dword i of the destination gets pattern dword (i mod length), for i below
// the count; 256 threads per group (FILL_THREADS_PER_GROUP).
// The device bounds the count and the length it pushes by the root UAV's buffer (`Root::arguments`).
#version 450
#extension GL_EXT_buffer_reference : require

layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Dwords {
    uint v[];
};

layout(push_constant) uniform Constants {
    uvec4 pattern;
    uint pattern_length;
    uint count;
    Dwords dst;
} pc;

void main() {
    uvec3 n = gl_NumWorkGroups * gl_WorkGroupSize;
    uvec3 g = gl_GlobalInvocationID;
    uint i = g.x + n.x * (g.y + n.y * g.z);
    if (i < pc.count) {
        pc.dst.v[i] = pc.pattern[i % max(pc.pattern_length, 1u)];
    }
}
