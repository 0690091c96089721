// The same scene with the capture module as its first import, as issue 47 tells creators to do.
import '../../assets/net-capture'
export * from './index'
