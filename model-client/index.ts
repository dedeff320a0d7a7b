/**
 * The model client: a trained decoder (an exported model folder) as a debugger's predictor.
 *
 *   model-folder.ts     load and check a model folder (manifest sha256s, config, tokenizer)
 *   session.ts          the ONNX decoder on onnxruntime-node (cpu, or cuda with a CPU fallback)
 *   kv-cache.ts         its attention cache, appended in place: truncate (roll back), expand (n samples), row
 *   frame-constraint.ts the grammar of one frame, checked token by token while decoding
 *   decode.ts           greedy and top-p decoding under the grammar, n samples in one batch
 *   confidence.ts       per-value confidences from the tokens' probabilities
 *   entry-state.ts      the first state of a run, from the entry's arguments
 *   predictor.ts        the Predictor interface; neural-predictor.ts and tracer-predictor.ts
 */
export { type ExitConfidence, type StateConfidence } from './confidence.js';
export { decodeFrames, FrameBudgetError, generateGreedy, type SamplingOptions } from './decode.js';
export { type Entry, EntryError } from './entry-state.js';
export { KvCache } from './kv-cache.js';
export { loadModelFolder, loadTokenizer, type ModelFolder, ModelFolderError, type Precision } from './model-folder.js';
export { NeuralPredictor, type NeuralPredictorOptions } from './neural-predictor.js';
export type { ExitPrediction, HistoryEntry, Origin, PredictedState, Prediction, PredictOptions, Predictor, Vote } from './predictor.js';
export { ContextOverflowError, createInferenceSession, ModelSession, type Provider, type SessionOptions } from './session.js';
export { OffTraceError, sameState, TracerPredictor } from './tracer-predictor.js';
