import CustomStages
import ToastCLI
import ToastPipeline

// toastscript, plus the stages of this package; place them with config{ stages = {...} }.
// It goes by its own name in --help, --version and every message.
Toastscript.main(registry: .withCustomStages, name: "my-toastscript", version: "1.0.0")
