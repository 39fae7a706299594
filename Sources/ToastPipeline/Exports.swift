// The library users import is one module: the plugin API lives in the core, the in-memory
// streams in the I/O module and the script errors in the Lua bridge; only what each of them
// declares `public` comes through.
@_exported import ToastCore
@_exported import ToastIO
@_exported import ToastLua
