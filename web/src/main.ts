import './app.css';
import { mount } from 'svelte';
import App from './App.svelte';
import { i18n } from './lib/i18n/index.svelte';

i18n.apply();
mount(App, { target: document.getElementById('app')! });
