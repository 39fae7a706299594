import ToastPipeline

Toastscript.main()
