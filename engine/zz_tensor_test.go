package engine
import ("testing";ort "github.com/yalue/onnxruntime_go")
func BenchmarkZZTensor(b *testing.B){ needRuntime(b); buf:=make([]float32,512*50); for i:=0;i<b.N;i++{ t,_:=ort.NewTensor(ort.NewShape(int64(100+i%7),50),buf); t.Destroy()}}
