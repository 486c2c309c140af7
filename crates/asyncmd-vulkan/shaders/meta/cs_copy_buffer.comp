// Internal: the compute copy behind CopyBufferRegion where it beats vkCmdCopyBuffer. Copies
// `count` 16-byte elements from `src` to `dst`, grid-stride over 256-thread groups.
#version 450
#extension GL_EXT_buffer_reference : require

layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Source {
    uvec4 v[];
};

layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer Dest {
    uvec4 v[];
};

layout(push_constant) uniform Constants {
    Source src;
    Dest dst;
    uint count;
} pc;

void main() {
    uint count = pc.count;
    uint stride = gl_NumWorkGroups.x * 256u;
    // Steps stop before the index could wrap past 2^32.
    for (uint i = gl_GlobalInvocationID.x; i < count; i = (count - i > stride) ? i + stride : count) {
        pc.dst.v[i] = pc.src.v[i];
    }
}
