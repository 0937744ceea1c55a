/* SPDX-License-Identifier: MIT */
/* -g: keys read as floating-point numbers by strtold, as GNU sort does: conversion
 * errors first, then NaNs, then numbers (-0 equal to +0). */
#ifndef GPUSORT_TEXT_GENERAL_H
#define GPUSORT_TEXT_GENERAL_H

#include <stddef.h>
#include <stdint.h>

int text_general_compare(const char *a, size_t alen, const char *b, size_t blen);
uint64_t text_general_image(const char *key, size_t len);

#endif
