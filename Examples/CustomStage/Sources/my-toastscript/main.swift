import CustomStages
import ToastPipeline

// toastscript, plus the stages of this package; place them with config{ stages = {...} }.
Toastscript.main(registry: .withCustomStages)
