#include <zlib.h>

// deflateInit2 and inflateInit2 are macros over the versioned functions.
static inline int czlib_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
static inline int czlib_inflate_init_gzip(z_streamp stream) {
    return inflateInit2(stream, 15 + 32);
}
// Raw deflate (no header or checksum), for short records compressed against a preset dictionary.
// windowBits 9...15 sizes the window (2^bits bytes); memLevel 1...9 the hash table.
static inline int czlib_deflate_init_raw(z_streamp stream, int level, int windowBits, int memLevel) {
    return deflateInit2(stream, level, Z_DEFLATED, -windowBits, memLevel, Z_DEFAULT_STRATEGY);
}
static inline int czlib_inflate_init_raw(z_streamp stream) {
    return inflateInit2(stream, -15);
}
