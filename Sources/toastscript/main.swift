import ToastCLI

Toastscript.main()
