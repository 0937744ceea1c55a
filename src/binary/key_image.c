/* SPDX-License-Identifier: MIT */
/* Binary key types (names, sizes), key images and the full key comparison (see key_image.h). */
#include "config.h"
#include <string.h>
#include "key_image.h"

static const char *const key_type_names[] = {"u32", "i32", "u64", "i64", "f32", "f64", "bytes"};

const char *key_type_name(enum key_type type)
{
	return key_type_names[type];
}

size_t key_type_size(enum key_type type)
{
	switch (type) {
	case KEY_U32: case KEY_I32: case KEY_F32: return 4;
	case KEY_U64: case KEY_I64: case KEY_F64: return 8;
	default: return 0;
	}
}

static uint32_t load_u32(const unsigned char *p)
{
	uint32_t value;
	memcpy(&value, p, sizeof value);
	return value;
}

static uint64_t load_u64(const unsigned char *p)
{
	uint64_t value;
	memcpy(&value, p, sizeof value);
	return value;
}

static uint32_t float_image(uint32_t bits)
{
	if ((bits & 0x7fffffffu) > 0x7f800000u)
		return 0xffffffffu; /* every NaN: equal to each other, after +inf */
	if (bits == 0x80000000u)
		bits = 0; /* -0.0 == +0.0 */
	return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}

static uint64_t double_image(uint64_t bits)
{
	if ((bits & 0x7fffffffffffffffULL) > 0x7ff0000000000000ULL)
		return ~0ULL;
	if (bits == 0x8000000000000000ULL)
		bits = 0;
	return bits & 0x8000000000000000ULL ? ~bits : bits | 0x8000000000000000ULL;
}

uint64_t key_image(enum key_type type, const unsigned char *key, size_t key_size)
{
	switch (type) {
	case KEY_U32: return load_u32(key);
	case KEY_I32: return load_u32(key) ^ 0x80000000u;
	case KEY_F32: return float_image(load_u32(key));
	case KEY_U64: return load_u64(key);
	case KEY_I64: return load_u64(key) ^ 0x8000000000000000ULL;
	case KEY_F64: return double_image(load_u64(key));
	case KEY_BYTES: {
		uint64_t image = 0;
		for (size_t i = 0; i < 8; i++)
			image = (image << 8) | (i < key_size ? key[i] : 0);
		return image;
	}
	}
	return 0;
}

bool key_image_is_bijective(enum key_type type)
{
	return type == KEY_U32 || type == KEY_I32 || type == KEY_U64 || type == KEY_I64;
}
