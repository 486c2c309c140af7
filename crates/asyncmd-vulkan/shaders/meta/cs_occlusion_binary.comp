// Internal: turns resolved 64-bit occlusion counts into the exact 0 or 1 of
// D3D12_QUERY_TYPE_BINARY_OCCLUSION.
#version 450
#extension GL_EXT_buffer_reference : require

layout(local_size_x = 64) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Dwords {
    uint v[];
};

layout(push_constant) uniform Constants {
    Dwords results;
    uint count;
} pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.count) {
        bool any = (pc.results.v[2 * i] | pc.results.v[2 * i + 1]) != 0u;
        pc.results.v[2 * i] = any ? 1u : 0u;
        pc.results.v[2 * i + 1] = 0u;
    }
}
