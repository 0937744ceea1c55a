/* SPDX-License-Identifier: MIT */
/* The calling thread's io scope (io_scope.h). */
#include "io_scope.h"

static struct io_scope process_scope;
static _Thread_local struct io_scope *scope_here;

struct io_scope *io_scope_current(void)
{
	return scope_here ? scope_here : &process_scope;
}

void io_scope_enter(struct io_scope *scope)
{
	scope_here = scope;
}
