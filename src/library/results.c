/* SPDX-License-Identifier: MIT */
/* The API's small calls: the version, the names of result codes, and the parsers a
 * front end needs for what it hands to a job (KEYDEF strings, SIZE arguments). */
#include "config.h"
#include <errno.h>
#include <string.h>
#include "../../include/gpusort.h"
#include "../settings/keydef.h"
#include "../common/size_parse.h"
#include "../common/report.h"

unsigned gpusort_version_number(void)
{
	return GPUSORT_VERSION_NUMBER;
}

const char *gpusort_version_string(void)
{
	return GPUSORT_VERSION_STRING;
}

int gpusort_is_error(int code)
{
	return code < 0;
}

const char *gpusort_error_name(int code)
{
	switch (code) {
	case GPUSORT_OK: return "no error";
	case GPUSORT_DISORDER: return "input out of order";
	case GPUSORT_ERROR_STRUCT_SIZE: return "struct size mismatch";
	case GPUSORT_ERROR_USAGE: return "usage error";
	case GPUSORT_ERROR_KEYDEF: return "invalid key definition";
	case GPUSORT_ERROR_FAILED: return "sort failed";
	case GPUSORT_ERROR_DEVICE: return "device unavailable";
	case GPUSORT_ERROR_INTERNAL: return "internal error (self-check failed)";
	default: break;
	}
	/* an errno value: the system's words for it (thread-safe, unlike strerror) */
	const char *described = code < 0 && code >= -4095 ? strerrordesc_np(-code) : NULL;
	return described ? described : "unknown error code";
}

int gpusort_keydef_check(const char *text, char *message, size_t message_size)
{
	if (!text)
		return GPUSORT_ERROR_INVALID_ARGUMENT;
	struct keydef key;
	const char *reason;
	if (keydef_parse(text, &key, &reason) == 0) {
		if (message && message_size)
			message[0] = '\0';
		return GPUSORT_OK;
	}
	if (message && message_size)
		keydef_error_message(text, message, message_size);
	return GPUSORT_ERROR_KEYDEF;
}

int gpusort_parse_size(const char *text, size_t *bytes)
{
	if (!text || !bytes)
		return GPUSORT_ERROR_INVALID_ARGUMENT;
	size_t parsed;
	if (size_parse(text, 1024, &parsed) != 0)
		return GPUSORT_ERROR_INVALID_ARGUMENT;
	*bytes = parsed;
	return GPUSORT_OK;
}

const char *gpusort_quote(const char *text, char *buffer, size_t size)
{
	return report_locale_quote(text ? text : "", buffer, size);
}
