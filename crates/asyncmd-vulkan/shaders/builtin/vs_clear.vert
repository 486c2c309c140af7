// ShaderId::ClearVs: the full-viewport triangle (-1,-1), (-1,3), (3,-1) at the clear depth,
// on the render-target array slice from the root constants.
#version 450
#extension GL_ARB_shader_viewport_layer_array : require

layout(push_constant) uniform Constants {
    uvec4 value;
    float depth;
    uint slice;
} pc;

void main() {
    int id = gl_VertexIndex % 3;
    vec2 xy = vec2(id == 2 ? 3.0 : -1.0, id == 1 ? 3.0 : -1.0);
    gl_Position = vec4(xy, pc.depth, 1.0);
    gl_Layer = int(pc.slice);
}
