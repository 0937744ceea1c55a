/* SPDX-License-Identifier: MIT */
/* --version, laid out as coreutils' --version: name and version, copyright, licence,
 * warranty, authors. */
#include "config.h"
#include <stdio.h>
#include <gpusort.h>
#include "help.h"

void version_print(void)
{
	printf("gpusort (gpusort) %s\n"
	       "Copyright (C) 2026 the gpusort authors.\n"
	       "License: none stated yet by the authors.\n"
	       "There is NO WARRANTY, to the extent permitted by law.\n"
	       "\n"
	       "Written by the gpusort authors.\n",
	       gpusort_version_string());
}
