// The standard libraries, opened one by one.
#include "CLuaBridge.h"
#include <string.h>

/// Opens one standard library by name into the globals ("_G" for the base library).
void clua_openlib(lua_State *L, const char *name) {
    lua_CFunction fn = NULL;
    if (strcmp(name, "_G") == 0) fn = luaopen_base;
    else if (strcmp(name, "string") == 0) fn = luaopen_string;
    else if (strcmp(name, "table") == 0) fn = luaopen_table;
    else if (strcmp(name, "math") == 0) fn = luaopen_math;
    else if (strcmp(name, "utf8") == 0) fn = luaopen_utf8;
    else if (strcmp(name, "os") == 0) fn = luaopen_os;
    if (fn == NULL) return;
    luaL_requiref(L, name, fn, 1);
    lua_pop(L, 1);
}
